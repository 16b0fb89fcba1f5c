package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code baton demo}: the bundled sample through the real topology, in this process. */
class DemoCommandIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldAnswerEveryHandoffOfTheSampleAndLeaveNothingRunning() throws Exception {
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());

        CommandOutput result = CommandOutput.run("demo", "--jsonl");

        assertThat(result.exitCode()).as(result.err()).isZero();
        List<JsonNode> snapshots = result.outLines().stream().map(DemoCommandIT::json).toList();
        assertThat(snapshots).extracting(s -> s.get("snapshot_id").asText()).containsExactly(
                "acme-robotics/sess-esc-0193/ho-0193-1",
                "acme-robotics/sess-esc-0193/ho-0193-2",
                "acme-robotics/sess-own-0007/ho-0007-resume",
                "globex/sess-legacy-2291/ho-2291-1",
                "globex/sess-long-0412/ho-0412-1",
                "initech/sess-cli-0051/ho-0051-1");

        JsonNode escalation = snapshots.get(0);
        assertThat(escalation.at("/framing/kind").asText()).isEqualTo("CONTINUITY");
        // the local model's tool calls reach Opus as narration, never as Opus's own calls
        assertThat(escalation.get("messages").toString()).contains("[qwen-coder called run_tests(");
        escalation.get("messages").forEach(m -> assertThat(m.get("tool_calls")).isEmpty());

        assertThat(snapshots.get(2).at("/framing/kind").asText()).isEqualTo("OWNER_FROM_START");
        assertThat(snapshots.get(3).get("messages").toString()).contains("[no result recorded]");

        JsonNode trimmed = snapshots.get(4);
        assertThat(trimmed.at("/stats/message_chars").asLong()).isLessThanOrEqualTo(6000);
        assertThat(trimmed.get("truncations").toString()).contains("TRAIL_MANIFEST").contains("TRANSCRIPT_MIDDLE_");

        JsonNode cli = snapshots.get(5);
        assertThat(cli.get("target").asText()).isEqualTo("CLAUDE_CLI");
        assertThat(cli.get("messages")).isEmpty();
        assertThat(cli.get("brick").asText()).isNotBlank();

        assertThat(result.err()).contains("1 dead letter").contains("1 duplicate turn");
        assertThat(CommandOutput.lingeringThreads(before)).isEmpty();
    }

    @Test
    void shouldPrintAReadableViewWithMarkersAndDeadLetters() {
        CommandOutput result = CommandOutput.run("demo");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out())
                .contains("acme-robotics / sess-esc-0193 · hand-off ho-0193-1")
                .contains("qwen-coder → claude-opus (LOCAL)")
                .contains("framing: OWNER_FROM_START")
                .contains("[assistant · qwen-coder]")
                .contains("→ run_tests {\"path\":\"tests/test_smoothing.py\",\"repeat\":20,\"stop_on_fail\":false}")
                .contains("TRANSCRIPT_MIDDLE_")
                .contains("transcript: none (CLAUDE_CLI")
                .contains("INVALID_NAME");
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }
}
