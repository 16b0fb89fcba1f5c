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

/**
 * {@code baton backfill --from atif}: recorded trajectories converted and replayed through the real topology on the
 * embedded broker in one command; the snapshot a senior model gets at the end of each run carries every recorded
 * tool call and result, with R9 parity 100%.
 */
class BackfillFromAtifIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void shouldConvertAndReplayInOneGoWithEveryToolCallAndResultInTheSnapshots() throws IOException {
        Path atif = ImportCommandTest.FIXTURES.resolve("atif");
        Path snapshots = dir.resolve("snapshots.jsonl");
        Path events = dir.resolve("events.jsonl");
        CommandOutput run = CommandOutput.run("backfill", "--from", "atif", "--tenant", "acme",
                atif.resolve("v1_4-escalation.json").toString(), atif.resolve("v1_2-hostile.json").toString(),
                "--handoff-last", "claude-opus", "--events", events.toString(), "-o", snapshots.toString(), "--no-progress");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).contains("import: 2 files, 2 trajectories → 2 sessions");
        List<JsonNode> out = Files.readAllLines(snapshots).stream().map(BackfillFromAtifIT::json).toList();
        assertThat(out).extracting(s -> s.get("snapshot_id").asText())
                .containsExactly("acme/run-esc-4/import-last", "acme/run-hostile/import-last");
        for (JsonNode s : out) {
            assertThat(s.get("parity").get("covered_items").asLong()).isEqualTo(s.get("parity").get("reference_items").asLong());
            assertThat(s.get("parity").get("reference_items").asLong()).isPositive();
        }
        String escalation = out.get(0).get("messages").toString();
        JsonNode recorded = JSON.readTree(atif.resolve("v1_4-escalation.json").toFile());
        for (JsonNode step : recorded.get("steps")) {
            for (JsonNode call : step.path("tool_calls")) {
                assertThat(escalation).contains("called " + call.get("function_name").asText() + "(");
            }
            for (JsonNode result : step.path("observation").path("results")) {
                assertThat(escalation).contains(JSON.writeValueAsString(result.get("content").asText()).replace("\"", ""));
            }
        }
        // kept with --events: what was replayed (9 + 5 turns, a hand-off per session)
        assertThat(Files.readAllLines(events)).hasSize(16);
    }

    @Test
    void shouldShowWhatASeniorModelWouldHaveSeenAtEveryErrorOfARecordedRun() throws IOException {
        // imported runs with hand-off triggers: recorded trajectories, a synthetic hand-off after every turn with an
        // ERROR step (the recording's exit_code / is_error), as claude-opus would have received it
        Path atif = ImportCommandTest.FIXTURES.resolve("atif");
        Path snapshots = dir.resolve("errors.jsonl");
        CommandOutput run = CommandOutput.run("backfill", "--from", "atif", "--tenant", "acme",
                atif.resolve("v1_4-escalation.json").toString(), "--handoff-at", "error", "--handoff-to",
                "claude-opus", "-o", snapshots.toString(), "--no-progress");

        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> out = Files.readAllLines(snapshots).stream().map(BackfillFromAtifIT::json).toList();
        assertThat(out).as("one snapshot per error point (a failed test run, a patch that did not apply)").hasSize(2);
        long previousSeq = -1;
        for (JsonNode s : out) {
            assertThat(s.get("synthetic").asBoolean()).isTrue();
            assertThat(s.get("handoff_id").asText()).startsWith("baton-synthetic:error:");
            assertThat(s.get("to_agent").asText()).isEqualTo("claude-opus");
            assertThat(s.get("as_of_seq").asLong()).isGreaterThan(previousSeq);
            previousSeq = s.get("as_of_seq").asLong();
            // the error the local model hit is in front of the receiver, narrated as an error
            assertThat(s.get("messages").toString()).contains("[error: ");
            assertThat(s.get("parity").get("covered_items").asLong())
                    .isEqualTo(s.get("parity").get("reference_items").asLong());
        }
        assertThat(out.get(0).get("messages").toString()).contains("FAILED tests/test_m.py::test_f");
        assertThat(out.get(1).get("messages").toString()).contains("patch does not apply");
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }
}
