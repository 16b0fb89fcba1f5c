package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.app.ExitCodes;

/** {@code baton import}: recorded files in, SessionEvent JSONL out, what was done on stderr; no Kafka involved. */
class ImportCommandTest {

    /** The importer's fixtures (the replay module's test resources). */
    static final Path FIXTURES = Path.of("..", "replay", "src", "test", "resources", "importer");

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void shouldConvertADirectoryAndSayWhatItRejectedWithExitCode3() throws IOException {
        Path out = dir.resolve("events.jsonl.gz");
        Path report = dir.resolve("report.jsonl");
        CommandOutput run = CommandOutput.run("import", "--from", "atif", "--tenant", "acme", FIXTURES.resolve("atif").toString(),
                "-o", out.toString(), "--report", report.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(run.err()).contains("import: 7 files, 9 trajectories → 9 sessions")
                .contains("two-runs.jsonl:2: rejected: steps[1].source is 'robot'")
                .contains("two-runs.jsonl:3: rejected: not JSON");
        List<JsonNode> notes = Files.readAllLines(report).stream().map(ImportCommandTest::json).toList();
        assertThat(notes).extracting(n -> n.get("kind").asText()).contains("REJECTED", "ID_MAPPED", "NAME_MAPPED");
        assertThat(notes).allMatch(n -> n.has("source") && n.has("message"));
        assertThat(Files.size(out)).isPositive();
    }

    @Test
    void shouldWriteToStdoutAndExitZeroWhenEveryInputConverted() {
        CommandOutput run = CommandOutput.run("import", "--from", "openai-chat", "--tenant", "acme",
                FIXTURES.resolve("chat/adjacent.json").toString(), "-o", "-", "--handoff-last", "claude-opus");

        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> events = run.outLines().stream().map(ImportCommandTest::json).toList();
        assertThat(events).hasSize(9);
        assertThat(events.get(0).get("event_id").asText()).isEqualTo("chatcmpl-log-1:0");
        JsonNode handoff = events.get(8).get("handoff");
        assertThat(handoff.get("to_agent").asText()).isEqualTo("claude-opus");
        assertThat(handoff.get("as_of_seq").asLong()).isEqualTo(7);
    }

    @Test
    void shouldRefuseAWrongCommandLineWithExitCode2() {
        assertThat(CommandOutput.run("import", "--from", "atif", "x.json", "-o", "-").exitCode()).isEqualTo(ExitCodes.USAGE);
        CommandOutput badTenant = CommandOutput.run("import", "--from", "atif", "--tenant", "a/b", "x.json", "-o", "-");
        assertThat(badTenant.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(badTenant.err()).contains("tenant 'a/b' is not an id");
        assertThat(CommandOutput.run("import", "--from", "yaml", "--tenant", "t", "x.json", "-o", "-").exitCode())
                .isEqualTo(ExitCodes.USAGE);
        CommandOutput missing = CommandOutput.run("import", "--from", "atif", "--tenant", "t",
                dir.resolve("nope.json").toString(), "-o", dir.resolve("o.jsonl").toString());
        assertThat(missing.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(missing.err()).contains("no such input");
    }

    @Test
    void shouldTakeBackfillsConversionOptionsOnlyWithFrom() {
        CommandOutput noFrom = CommandOutput.run("backfill", FIXTURES.resolve("atif").toString(), "-o", "x.jsonl",
                "-i", "events.jsonl");
        assertThat(noFrom.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(noFrom.err()).contains("only with --from");
        CommandOutput both = CommandOutput.run("backfill", "--from", "atif", "--tenant", "t", "-i", "events.jsonl",
                FIXTURES.resolve("atif").toString(), "-o", "x.jsonl");
        assertThat(both.exitCode()).isEqualTo(ExitCodes.USAGE);
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }

    @Test
    void shouldImportOtelGenAiTracesIntoEventsThatProduceAccepts() throws IOException {
        Path events = dir.resolve("events.jsonl");
        CommandOutput run = CommandOutput.run("import", "--from", "otel-genai", "--tenant", "acme",
                FIXTURES.resolve("otel/support-traces.jsonl").toString(), "-o", events.toString(),
                "--handoff-last", "refunds");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).contains("import: 1 files, 3 trace exports → 2 sessions");
        // the events pass Baton's own decoder: `produce --check` (no Kafka) finds nothing to refuse
        CommandOutput check = CommandOutput.run("produce", "--check", "--format", "json", events.toString());
        assertThat(check.exitCode()).as(check.err()).isZero();
        assertThat(check.err()).contains("events valid");

        Files.writeString(events, Files.readString(events) + "{\"event_id\":\"x\"}\n");
        CommandOutput refused = CommandOutput.run("produce", "--check", "--format", "json", events.toString());
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err()).containsPattern("line \\d+: INVALID_FIELD");
    }
}
