package dev.baton.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * The alert rules of deploy/components/monitoring as Prometheus reads them: {@code promtool check rules}
 * accepts them and {@code promtool test rules} passes the scenarios of alert-tests.yaml (series that
 * vanish when pods crash-loop, lag that grows, dead letters of code INTERNAL, a tokens file that fails
 * closed). Every alert has a scenario and a runbook section in docs/operations.md.
 *
 * <p>promtool comes with Debian's {@code prometheus} package ({@code .ci/run} installs it). Without it
 * the promtool tests are skipped, except under {@code CI=true}, where they fail.
 */
class AlertRulesTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Path TESTS = MonitoringFiles.COMPONENT.resolve("alert-tests.yaml");
    private static final Path OPERATIONS = Paths.get("..", "docs", "operations.md");
    /** Where the runbooks are read; an overlay may point the annotations elsewhere. */
    static final String RUNBOOKS = "https://github.com/example/baton/blob/main/docs/operations.md#";

    @TempDir
    Path dir;

    @Test
    void shouldPassPromtoolCheckRules() throws Exception {
        Path rules = plainRulesFile();
        String out = promtool("check", "rules", rules.toString());
        assertThat(out).contains("SUCCESS: " + alerts().size() + " rules found");
    }

    @Test
    void shouldPassTheAlertUnitTests() throws Exception {
        plainRulesFile();
        Files.copy(TESTS, dir.resolve("alert-tests.yaml"));
        assertThat(promtool("test", "rules", dir.resolve("alert-tests.yaml").toString())).contains("SUCCESS");
    }

    @Test
    void shouldFailTheUnitTestsOfARuleThatMissesVanishedSeries() throws Exception {
        // the pre-issue-20 form of "no stream thread": it needs the series it watches, so it never fires
        // once a crashed pod's series are gone; the scenarios must catch that
        JsonNode spec = YAML.readTree(MonitoringFiles.RULES.toFile()).get("spec");
        int edited = 0;
        for (JsonNode group : spec.get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                String expr = rule.get("expr").asText();
                String weaker = expr.replace("absent(kafka_stream_thread_thread_state{job=\"baton\"} == 4)",
                        "max(kafka_stream_thread_thread_state{job=\"baton\"}) != 4");
                if (!weaker.equals(expr)) {
                    ((com.fasterxml.jackson.databind.node.ObjectNode) rule).put("expr", weaker);
                    edited++;
                }
            }
        }
        assertThat(edited).isEqualTo(1);
        YAML.writeValue(dir.resolve("baton-rules.yaml").toFile(), spec);
        Files.copy(TESTS, dir.resolve("alert-tests.yaml"));
        Result result = run("promtool", "test", "rules", dir.resolve("alert-tests.yaml").toString());
        assertThat(result.exit()).isNotZero();
        assertThat(result.output()).contains("alertname: BatonNoRunningStreamThread");
    }

    @Test
    void shouldTestEveryAlert() throws IOException {
        Set<String> tested = new TreeSet<>();
        for (JsonNode test : YAML.readTree(TESTS.toFile()).get("tests")) {
            test.path("alert_rule_test").forEach(t -> {
                if (t.path("exp_alerts").size() > 0) {
                    tested.add(t.get("alertname").asText());
                }
            });
        }
        assertThat(tested).as("alerts seen firing in alert-tests.yaml").containsExactlyInAnyOrderElementsOf(alertNames());
    }

    @Test
    void shouldLinkEveryAlertToItsRunbookInOperationsMd() throws IOException {
        Set<String> anchors = headingAnchors(Files.readString(OPERATIONS, StandardCharsets.UTF_8));
        List<String> wrong = new ArrayList<>();
        for (JsonNode rule : alerts()) {
            String alert = rule.get("alert").asText();
            String url = rule.at("/annotations/runbook_url").asText();
            if (!url.equals(RUNBOOKS + alert.toLowerCase())) {
                wrong.add(alert + ": runbook_url " + url);
            } else if (!anchors.contains(alert.toLowerCase())) {
                wrong.add(alert + ": no heading \"" + alert + "\" in docs/operations.md");
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void shouldPageWhenEveryInstanceIsGoneWithoutNeedingItsSeries() throws IOException {
        // a rule over series that vanish cannot fire once they are gone: the absence alerts use absent()
        for (String alert : List.of("BatonAbsent", "BatonNoRunningStreamThread")) {
            JsonNode rule = alerts().stream().filter(r -> r.get("alert").asText().equals(alert)).findFirst().orElseThrow();
            assertThat(rule.get("expr").asText()).as(alert).contains("absent(");
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private static List<JsonNode> alerts() throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode group : YAML.readTree(MonitoringFiles.RULES.toFile()).at("/spec/groups")) {
            group.get("rules").forEach(out::add);
        }
        return out;
    }

    private static List<String> alertNames() throws IOException {
        return alerts().stream().map(r -> r.get("alert").asText()).toList();
    }

    /** GitHub's anchors of the Markdown headings: lower case, punctuation dropped, spaces as dashes. */
    static Set<String> headingAnchors(String markdown) {
        Set<String> anchors = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*$").matcher(markdown.replaceAll("(?ms)^```.*?^```", ""));
        while (m.find()) {
            anchors.add(m.group(1).toLowerCase().replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
        }
        return anchors;
    }

    /** The PrometheusRule's spec (groups of rules) as the plain rules file promtool reads. */
    private Path plainRulesFile() throws IOException {
        Path rules = dir.resolve("baton-rules.yaml");
        YAML.writeValue(rules.toFile(), YAML.readTree(MonitoringFiles.RULES.toFile()).get("spec"));
        return rules;
    }

    private static String promtool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        Result result = run(command.toArray(String[]::new));
        assertThat(result.exit()).as(String.join(" ", command) + ":\n" + result.output()).isZero();
        return result.output();
    }

    private record Result(int exit, String output) {
    }

    private static Result run(String... command) throws Exception {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException notInstalled) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError(command[0] + " is not installed, and CI=true (Debian package prometheus)", notInstalled);
            }
            Assumptions.abort(command[0] + " is not installed (Debian package prometheus)");
            throw notInstalled;
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish");
        }
        return new Result(process.exitValue(), output);
    }
}
