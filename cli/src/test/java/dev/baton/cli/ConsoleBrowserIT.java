package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.it.KafkaBroker;

/**
 * {@code /console} of a real {@code baton run} process against a real broker, in Debian's chromium: a tenant logs in
 * with its token, sees its own sessions only, opens one and reads what the session query says; another tenant's
 * sessions are refused; hostile text from the events is shown as text and runs nothing.
 */
class ConsoleBrowserIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ACME_TOKEN = "console-acme-token-0123456789abcdef0123";
    private static final String GLOBEX_TOKEN = "console-globex-token-0123456789abcdef012";
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void shouldShowATenantItsOwnSessionsBehindItsTokenAndRefuseAnotherTenants() throws Exception {
        Browser.assumeInstalled();
        kafka.kafka().createTopics(2, "baton.session-events");
        kafka.kafka().createTopics(2, Map.of("max.message.bytes", "8388608"), "baton.context-snapshots",
                "baton.dead-letters");
        kafka.kafka().createTopics(1, Map.of("cleanup.policy", "compact"), "baton.tenant-policies");
        int port = freePort();
        String base = "http://localhost:" + port;
        Path log = dir.resolve("run.log");
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, ACME_TOKEN + " acme\n" + GLOBEX_TOKEN + " globex\n");
        ProcessBuilder builder = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dlog4j2.shutdownHookEnabled=false", "-cp", System.getProperty("java.class.path"),
                BatonCommand.class.getName(), "run", "--bootstrap-servers", kafka.bootstrapServers(), "--format", "json",
                "--http-port", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("BATON_STATE_DIR", dir.resolve("state").toString());
        env.put("BATON_REPLICATION_FACTOR", "1");
        env.put("BATON_NUM_STANDBY_REPLICAS", "0");
        env.put("BATON_APPLICATION_ID", "baton-console-it");
        env.put("BATON_APPLICATION_SERVER", "localhost:" + port);
        env.put("BATON_HTTP_TOKENS_FILE", tokens.toString());
        Process process = builder.start();
        try (Browser browser = Browser.start()) {
            awaitReady(base + "/readyz", process, log);
            produce(List.of(
                    turn("acme", "s-1", "e1", 0, "qwen-coder", "USER", ViewerBrowserIT.HOSTILE, null),
                    turn("acme", "s-1", "e2", 1, "qwen-coder", "ASSISTANT", "Ran it. " + ViewerBrowserIT.HOSTILE,
                            ViewerBrowserIT.HOSTILE),
                    handoff("acme", "s-1", "e3", "h1"),
                    turn("globex", "g-1", "e4", 0, "qwen-coder", "USER", "globex's secret task", null),
                    handoff("globex", "g-1", "e5", "h1")));
            awaitSnapshots(2);

            browser.driver.get(base + "/console");
            logIn(browser, "acme", ACME_TOKEN);
            browser.wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#sessions button")));
            assertThat(sessionsListed(browser)).containsExactly("s-1");

            browser.driver.findElement(By.id("receiver")).sendKeys("claude-opus");
            browser.driver.findElement(By.cssSelector("#sessions button")).click();
            browser.wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#messages")));
            JsonNode expected = JSON.readTree(get(base + "/sessions/acme/s-1?to_agent=claude-opus", ACME_TOKEN).body());
            List<String> contents = new ArrayList<>();
            expected.at("/preview/messages").forEach(m -> contents.add(m.get("content").asText()));
            assertThat(contents).isNotEmpty();
            assertThat(browser.js("return Array.from(document.querySelectorAll('#messages > .msg > pre.content'))"
                    + ".map(e => e.textContent);")).isEqualTo(contents);
            assertThat(browser.js("return document.getElementById('brick').textContent;"))
                    .isEqualTo(expected.at("/preview/brick").asText());
            assertThat(browser.js("return document.getElementById('state').textContent;")).asString()
                    .contains("turn_count" + expected.at("/state/turn_count").asText());
            assertThat(browser.driver.findElements(By.cssSelector("#messages .msg.narrated"))).isNotEmpty();
            browser.js("document.getElementById('detail').scrollTop = 0;");
            browser.screenshot("console");
            assertThat(browser.driver.getCurrentUrl()).doesNotContain(ACME_TOKEN);

            // another tenant's sessions, with acme's token: refused, in the page and to a direct request from it
            logIn(browser, "globex", ACME_TOKEN);
            browser.wait.until(d -> !d.findElement(By.id("error")).getText().isEmpty());
            assertThat(browser.driver.findElement(By.id("error")).getText()).startsWith("403");
            assertThat(browser.driver.findElements(By.cssSelector("#sessions button"))).isEmpty();
            Object status = browser.driver.executeAsyncScript("var done = arguments[arguments.length - 1];"
                    + "fetch('/sessions/globex/g-1', {headers: {Authorization: 'Bearer ' + arguments[0]}})"
                    + ".then(r => done(r.status), e => done(String(e)));", ACME_TOKEN);
            assertThat(status).isEqualTo(403L);
            assertThat(browser.driver.findElement(By.tagName("body")).getText()).doesNotContain("globex's secret task");

            // globex's own token sees globex's session, and only it
            logIn(browser, "globex", GLOBEX_TOKEN);
            browser.wait.until(d -> sessionsListed(browser).equals(List.of("g-1")));

            assertThat(browser.alertOpen()).as("an alert opened").isFalse();
            assertThat(browser.driver.getTitle()).isEqualTo("Baton console");
            assertThat(browser.js("return typeof window.__pwned;")).isEqualTo("undefined");
            assertThat(browser.js("return document.querySelectorAll('img, svg, a, iframe, body style').length;"))
                    .isEqualTo(0L);
        } finally {
            process.destroy();
            if (!process.waitFor(90, TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }

    private static void logIn(Browser browser, String tenant, String token) {
        WebElement tenantField = browser.driver.findElement(By.id("login-tenant"));
        tenantField.clear();
        tenantField.sendKeys(tenant);
        browser.driver.findElement(By.id("login-token")).sendKeys(token);
        browser.driver.findElement(By.id("login-button")).click();
    }

    @SuppressWarnings("unchecked")
    private static List<String> sessionsListed(Browser browser) {
        return (List<String>) browser.js("return Array.from(document.querySelectorAll('#sessions button'))"
                + ".map(b => b.getAttribute('data-session'));");
    }

    private static String turn(String tenant, String session, String eventId, int seq, String agent, String role,
            String text, String toolResult) {
        ObjectNode e = event(tenant, session, eventId);
        ObjectNode turn = e.putObject("turn").put("seq", seq).put("agent", agent).put("role", role).put("text", text);
        if (toolResult != null) {
            turn.putArray("trail").addObject().put("call_id", "c1").put("tool", "run_tests")
                    .put("status", "OK").put("result", toolResult).putObject("arguments").put("q", toolResult);
        }
        return e.toString();
    }

    private static String handoff(String tenant, String session, String eventId, String handoffId) {
        ObjectNode e = event(tenant, session, eventId);
        e.putObject("handoff").put("handoff_id", handoffId).put("from_agent", "qwen-coder").put("to_agent", "claude-opus")
                .put("target", "LOCAL");
        return e.toString();
    }

    private static ObjectNode event(String tenant, String session, String eventId) {
        return JSON.createObjectNode().put("event_id", eventId).put("tenant_id", tenant).put("session_id", session)
                .put("occurred_at", "2026-11-30T09:00:00Z");
    }

    private static void produce(List<String> events) throws IOException {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null))) {
            for (String event : events) {
                JsonNode e = JSON.readTree(event);
                String key = e.get("tenant_id").asText() + "/" + e.get("session_id").asText();
                producer.send(new ProducerRecord<>("baton.session-events", key.getBytes(StandardCharsets.UTF_8),
                        event.getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    private static void awaitSnapshots(int count) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("console-it-reader"))) {
            consumer.subscribe(List.of("baton.context-snapshots"));
            AtomicInteger seen = new AtomicInteger();
            Awaitility.await(count + " snapshots").atMost(Duration.ofSeconds(90)).pollInSameThread()
                    .pollInterval(Duration.ZERO)
                    .until(() -> seen.addAndGet(consumer.poll(Duration.ofMillis(200)).count()) >= count);
            assertThat(seen.get()).as("snapshots").isEqualTo(count);
        }
    }

    private void awaitReady(String url, Process process, Path log) {
        Awaitility.await(url).atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                .failFast("baton run exited early", () -> assertThat(process.isAlive())
                        .as("baton run exited early:\n%s", Files.readString(log)).isTrue())
                .untilAsserted(() -> assertThat(status(url)).as("%s did not become ready:\n%s", url, Files.readString(log))
                        .isEqualTo(200));
    }

    /** The status {@code url} answers with, -1 while nothing listens. */
    private int status(String url) throws InterruptedException {
        try {
            return get(url, null).statusCode();
        } catch (IOException notYet) {
            return -1;
        }
    }

    private HttpResponse<String> get(String url, String token) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (token != null) request.header("Authorization", "Bearer " + token);
        return http.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
