package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.baton.service.viewer.ViewerPage;

/**
 * {@code baton view}'s report in a real browser (Debian's chromium, headless, from {@code file://}): what it shows is
 * what the snapshots say, the eval-set filters work, 10,000 snapshots open, and hostile content is shown as text and
 * runs nothing. The fixture is a backfill of the demo sessions with {@code --handoff-at error --handoff-at every:4
 * --handoff-to claude-opus} (the long session's snapshots thinned out).
 */
class ViewerBrowserIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path OUT = Path.of("target", "viewer-it");
    /** What every string of the hostile snapshots holds: each part would run script or fetch if it were markup. */
    static final String HOSTILE = "<script>window.__pwned='script';document.title='pwned'</script>"
            + "<img src=x onerror=\"window.__pwned='img';document.title='pwned'\">"
            + "<a href=\"javascript:window.__pwned='link'\">link</a> javascript:alert('url')"
            + "<svg onload=\"alert('svg')\"></svg><!-- \u2028\u2029 </script><style>body{display:none}</style>"
            + "<iframe src=\"https://example.invalid/\"></iframe>\n[result: ]\"}</script>";

    private static Browser browser;
    private static List<JsonNode> demo;

    @BeforeAll
    static void start() throws IOException {
        browser = Browser.start();
        demo = readFixture();
    }

    @AfterAll
    static void stop() {
        if (browser != null) browser.close();
    }

    @Test
    void shouldShowEachSnapshotAsItsJsonSays() throws IOException {
        Path page = view("demo", fixture());
        open(page);
        assertThat(listed()).hasSize(demo.size());

        for (JsonNode snap : demo) {
            select(snap.get("snapshot_id").asText());
            assertThat(text("#detail h2.snapshot-id")).startsWith(snap.get("snapshot_id").asText());
            assertThat(text("#brick")).isEqualTo(snap.get("brick").asText());
            assertThat(text("#framing")).isEqualTo(snap.at("/framing/system_prompt").asText());
            List<String> contents = new ArrayList<>();
            snap.get("messages").forEach(m -> contents.add(m.get("content").asText()));
            assertThat(texts("#messages > .msg > pre.content")).containsExactlyElementsOf(contents);
            long narrated = count(snap.get("messages"), m -> m.get("role").asText().equals("system")
                    && m.get("content").asText().matches("(?s)^\\[[A-Za-z0-9_-]+ called .*"));
            assertThat(texts("#messages > .msg.narrated > pre.content")).hasSize((int) narrated);

            // every marker is highlighted, links to its entry, and every entry is shown somewhere
            JsonNode truncations = snap.get("truncations");
            assertThat(browser.driver.findElements(By.cssSelector("#truncations tr[id^=t-]"))).hasSize(truncations.size());
            @SuppressWarnings("unchecked")
            List<List<Object>> marks = (List<List<Object>>) browser.js("return Array.from(document.querySelectorAll("
                    + "'#brick mark, #messages mark')).map(m => [m.getAttribute('data-t'), m.textContent]);");
            for (List<Object> mark : marks) {
                int t = Integer.parseInt((String) mark.get(0));
                assertThat(mark.get(1)).isEqualTo(truncations.get(t).get("marker").asText());
            }
            assertThat(marks.stream().map(m -> Integer.parseInt((String) m.get(0))).distinct().count())
                    .as("truncations shown").isEqualTo(truncations.size());

            for (String lane : List.of("trails", "transcript")) {
                assertThat(lane(lane)).as(snap.get("snapshot_id").asText() + " " + lane)
                        .isEqualTo(expectedLane(snap, lane));
            }
            assertThat(text("#sizes")).contains(String.format(Locale.ROOT, "%,d", snap.at("/stats/message_chars").asLong()))
                    .contains(String.format(Locale.ROOT, "%,d / %,d", snap.at("/parity/covered_items").asLong(),
                            snap.at("/parity/reference_items").asLong()));
        }

        // a marker's link leads to its entry
        select("globex/sess-long-0412/ho-0412-1");
        browser.js("document.querySelector('#detail h3').scrollIntoView();");
        browser.screenshot("viewer"); // docs/images/viewer.png is a copy of it
        browser.driver.findElement(By.cssSelector("#messages mark")).click();
        assertThat(browser.driver.findElements(By.cssSelector("#truncations tr.target"))).hasSize(1);
        browser.screenshot("report-long-session");

        // what changed since the previous hand-off of the session in the file
        select("acme-robotics/sess-esc-0193/ho-0193-2");
        assertThat(text("#changes p.summary")).startsWith("Since ho-0193-1 (as_of_seq 4):");
        assertThat(browser.driver.findElements(By.cssSelector("#changes .msg.added"))).isNotEmpty();
        select("acme-robotics/sess-esc-0193/baton-synthetic:every:3");
        assertThat(text("#changes")).startsWith("First hand-off of this session here");
        browser.js("document.getElementById('detail').scrollTop = 0;");
        browser.screenshot("report");
    }

    @Test
    void shouldFilterAnEvalSetBySessionReceiverSyntheticAndTrigger() throws IOException {
        open(view("filters", fixture()));
        new Select(browser.driver.findElement(By.id("filter-synthetic"))).selectByValue("synthetic");
        assertThat(listed()).hasSize((int) count(demo, s -> s.path("synthetic").asBoolean(false)));
        new Select(browser.driver.findElement(By.id("filter-trigger"))).selectByValue("error");
        assertThat(listed()).containsExactlyElementsOf(demo.stream().map(s -> s.get("handoff_id").asText())
                .filter(h -> h.startsWith("baton-synthetic:error:")).toList());
        new Select(browser.driver.findElement(By.id("filter-trigger"))).selectByValue("");
        new Select(browser.driver.findElement(By.id("filter-synthetic"))).selectByValue("real");
        new Select(browser.driver.findElement(By.id("filter-receiver"))).selectByValue("qwen-coder");
        assertThat(listed()).containsExactly("ho-0193-2");
        new Select(browser.driver.findElement(By.id("filter-receiver"))).selectByValue("");
        browser.driver.findElement(By.id("filter-session")).sendKeys("globex/");
        assertThat(listed()).containsExactly("ho-2291-1", "ho-0412-1");
    }

    @Test
    void shouldOpenTenThousandSnapshotsAndRenderOnlyAPage() throws IOException {
        JsonNode base = demo.get(demo.size() - 1);
        Path file = OUT.resolve("ten-thousand.jsonl");
        Files.createDirectories(OUT);
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            ObjectNode s = base.deepCopy();
            s.put("session_id", "s-" + i).put("handoff_id", "h").put("snapshot_id", s.get("tenant_id").asText() + "/s-" + i + "/h");
            lines.append(JSON.writeValueAsString(s)).append('\n');
        }
        Files.writeString(file, lines);
        Path page = view("ten-thousand", file);
        long started = System.nanoTime();
        open(page);
        System.out.printf("10,000 snapshots: %,d bytes of HTML, listed in %d ms%n", Files.size(page),
                (System.nanoTime() - started) / 1_000_000);
        assertThat(text("#page-info")).isEqualTo("page 1 of 100 · 10,000 shown");
        assertThat(listed()).hasSize(100);
        browser.driver.findElement(By.id("filter-session")).sendKeys("/s-9999");
        assertThat(listed()).hasSize(1);
        select("initech/s-9999/h");
        assertThat(text("#detail h2.snapshot-id")).isEqualTo("initech/s-9999/h");
    }

    @Test
    void shouldShowHostileContentAsTextAndRunNothing() throws IOException {
        // two snapshots of one session (so the changes are shown too) where every string is hostile
        JsonNode first = hostile(demo.get(1).deepCopy());
        ObjectNode second = (ObjectNode) hostile(demo.get(3).deepCopy());
        Path file = OUT.resolve("hostile.jsonl");
        Files.createDirectories(OUT);
        Files.writeString(file, JSON.writeValueAsString(first) + "\n" + JSON.writeValueAsString(second) + "\n");
        Path page = view("hostile", file);
        assertThat(Files.readString(page)).as("no data can close its script element")
                .doesNotContain("</script><img").doesNotContain("<!-- ");

        open(page);
        browser.driver.findElements(By.cssSelector("#list button")).get(1).click();
        browser.wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#messages mark")));
        browser.driver.findElement(By.cssSelector("#messages mark")).click();
        assertThat(text("#brick")).isEqualTo(HOSTILE);
        assertThat(text("#detail h2.snapshot-id")).isEqualTo(HOSTILE);
        assertThat(texts("#messages > .msg > pre.content")).allMatch(HOSTILE::equals);
        assertThat(text("#list button .row1")).startsWith(HOSTILE + "/" + HOSTILE);
        browser.screenshot("report-hostile");

        assertThat(browser.alertOpen()).as("an alert opened").isFalse();
        assertThat(browser.driver.getTitle()).isEqualTo(ViewerPage.TITLE);
        assertThat(browser.js("return typeof window.__pwned;")).isEqualTo("undefined");
        assertThat(browser.js("return document.querySelectorAll('img, svg, a, iframe, body style').length;"))
                .as("elements made of data").isEqualTo(0L);
        assertThat(browser.driver.findElement(By.tagName("body")).isDisplayed()).isTrue();
    }

    /** Every string of {@code node}, at any depth, replaced by {@link #HOSTILE}. */
    static JsonNode hostile(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                field.setValue(field.getValue().isTextual() ? TextNode.valueOf(HOSTILE) : hostile(field.getValue()));
            }
        } else if (node.isArray()) {
            ArrayNode array = (ArrayNode) node;
            for (int i = 0; i < node.size(); i++) {
                array.set(i, node.get(i).isTextual() ? TextNode.valueOf(HOSTILE) : hostile(node.get(i)));
            }
        }
        return node;
    }

    /** The two lanes the page should draw over seqs 0..as_of_seq, as runs of [kind, from, to] (see viewer.js). */
    private static List<List<Object>> expectedLane(JsonNode snap, String lane) {
        int n = snap.get("as_of_seq").asInt() + 1;
        int[] k = new int[n];
        String[] kinds;
        if (lane.equals("trails")) {
            kinds = new String[] {"none", "expanded", "inlined", "manifested"};
            mark(k, snap.at("/retention/expanded_seqs"), 1);
            mark(k, snap.at("/retention/inlined_seqs"), 2);
            mark(k, snap.at("/retention/manifest_seqs"), 3);
        } else {
            kinds = new String[] {"kept", "digested", "omitted", "missing"};
            Map<String, Integer> ranked = Map.of("TRANSCRIPT_MIDDLE_SUMMARIZED", 1, "TRANSCRIPT_MIDDLE_DROPPED", 2,
                    "TURNS_MISSING", 3);
            for (JsonNode t : snap.get("truncations")) {
                Integer v = ranked.get(t.get("kind").asText());
                if (v == null || t.get("seq_from").isNull()) continue;
                for (int s = t.get("seq_from").asInt(); s <= t.get("seq_to").asInt() && s < n; s++) k[s] = Math.max(k[s], v);
            }
        }
        List<List<Object>> runs = new ArrayList<>();
        int start = 0;
        for (int s = 1; s <= n; s++) {
            if (s == n || k[s] != k[start]) {
                runs.add(List.of(kinds[k[start]], (long) start, (long) (s - 1)));
                start = s;
            }
        }
        return runs;
    }

    private static void mark(int[] k, JsonNode seqs, int v) {
        seqs.forEach(s -> k[s.asInt()] = Math.max(k[s.asInt()], v));
    }

    @SuppressWarnings("unchecked")
    private static List<List<Object>> lane(String lane) {
        return (List<List<Object>>) browser.js("return Array.from(document.querySelectorAll('#timeline-' + arguments[0]"
                + " + ' span')).map(s => [s.getAttribute('data-kind'), Number(s.getAttribute('data-from')),"
                + " Number(s.getAttribute('data-to'))]);", lane);
    }

    private static Path view(String name, Path input) throws IOException {
        Files.createDirectories(OUT);
        Path page = OUT.resolve(name + ".html").toAbsolutePath();
        CommandOutput run = CommandOutput.run("view", input.toString(), "-o", page.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        return page;
    }

    private static void open(Path page) {
        browser.driver.get(page.toUri().toString());
        browser.wait.until(ExpectedConditions.presenceOfElementLocated(By.id("page-info")));
    }

    private static void select(String snapshotId) {
        browser.driver.findElement(By.id("filter-session")).clear();
        String[] parts = snapshotId.split("/", 3);
        browser.driver.findElement(By.id("filter-session")).sendKeys(parts[0] + "/" + parts[1]);
        for (var button : browser.driver.findElements(By.cssSelector("#list button"))) {
            if (button.findElement(By.cssSelector(".handoff")).getText().equals(parts[2])) {
                button.click();
                browser.wait.until(d -> text("#detail h2.snapshot-id").startsWith(snapshotId));
                return;
            }
        }
        throw new AssertionError("not listed: " + snapshotId);
    }

    /** The hand-off ids listed on the current page. */
    @SuppressWarnings("unchecked")
    private static List<String> listed() {
        return (List<String>) browser.js("return Array.from(document.querySelectorAll('#list button .handoff'))"
                + ".map(e => e.textContent);");
    }

    private static String text(String css) {
        return (String) browser.js("return document.querySelector(arguments[0]).textContent;", css);
    }

    @SuppressWarnings("unchecked")
    private static List<String> texts(String css) {
        return (List<String>) browser.js("return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent);", css);
    }

    private static <T> long count(Iterable<T> items, java.util.function.Predicate<T> p) {
        long n = 0;
        for (T item : items) if (p.test(item)) n++;
        return n;
    }

    static Path fixture() {
        return Path.of("src", "test", "resources", "viewer", "demo-snapshots.jsonl.gz");
    }

    private static List<JsonNode> readFixture() throws IOException {
        List<JsonNode> out = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(fixture()))) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank()) out.add(JSON.readTree(line));
            }
        }
        return out;
    }
}
