package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The engine's recorded-style fixtures (engine/src/test/resources/recorded) through {@code baton backfill}
 * and the real topology: every line is applied, every hand-off answered, and the snapshots keep the fixes —
 * orphan results planned by R3, the digest where it fits, ranges that span their counts, one seq written as one.
 */
class BackfillRecordedFixturesIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path FIXTURES = Path.of("..", "engine", "src", "test", "resources", "recorded");

    @TempDir
    Path dir;

    @Test
    void shouldReplayTheRecordedStyleFixturesAndKeepTheirFixes() throws IOException {
        Path input = dir.resolve("recorded.jsonl");
        List<String> lines = new ArrayList<>();
        for (String name : List.of("chat-reused-call-ids.jsonl", "atif-system-observations.jsonl",
                "many-short-turns.jsonl")) {
            lines.addAll(Files.readAllLines(FIXTURES.resolve(name), StandardCharsets.UTF_8));
        }
        Files.write(input, lines, StandardCharsets.UTF_8);
        Path out = dir.resolve("snapshots.jsonl");
        Path dead = dir.resolve("dead.jsonl");
        CommandOutput run = CommandOutput.run("backfill", "-i", input.toString(), "-o", out.toString(),
                "--dead-letters", dead.toString(), "--no-progress");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(dead).isEmptyFile();

        Map<String, JsonNode> bySnapshot = new TreeMap<>();
        for (String line : Files.readAllLines(out)) {
            JsonNode s = JSON.readTree(line);
            bySnapshot.put(s.get("snapshot_id").asText(), s);
        }
        assertThat(bySnapshot).hasSize(7);
        for (JsonNode s : bySnapshot.values()) {
            assertThat(s.toString()).doesNotContainPattern("seq (\\d+)–\\1\\b");
            for (JsonNode t : s.get("truncations")) {
                if (t.get("seq_from").isNull() || t.get("kind").asText().equals("SEGMENT_TRIMMED")
                        || t.get("kind").asText().equals("BRICK_RESULT_TRUNCATED")) continue;
                assertThat(t.get("seq_to").asLong() - t.get("seq_from").asLong() + 1).as(t.toString())
                        .isGreaterThanOrEqualTo(t.get("count").asLong());
            }
        }
        // the second answer to a reused id and the observation without an id are trails of their own (seqs 9, 14)
        JsonNode chat = bySnapshot.get("fixtures/chat-reused-ids/to-opus");
        List<Long> planned = new ArrayList<>();
        for (String list : List.of("expanded_seqs", "inlined_seqs", "manifest_seqs")) {
            chat.get("retention").get(list).forEach(n -> planned.add(n.asLong()));
        }
        assertThat(planned).doesNotHaveDuplicates().contains(9L, 14L);
        // the digest where it fits: the oldest paste summarized, the second one kept whole
        JsonNode wide = bySnapshot.get("fixtures/short-turns/to-senior-wide");
        assertThat(wide.get("truncations").toString()).contains("TRANSCRIPT_MIDDLE_SUMMARIZED")
                .doesNotContain("TRANSCRIPT_MIDDLE_DROPPED");
        assertThat(wide.get("messages").toString()).contains("Traceback (second paste):\\n");
    }
}
