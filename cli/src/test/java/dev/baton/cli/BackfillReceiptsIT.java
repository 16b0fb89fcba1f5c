package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.app.ExitCodes;

/**
 * {@code baton backfill --outcomes}: hand-off receipts in the input (lines with {@code content_sha256} and no
 * {@code tenant_id}) go through the real receipts join, and their outcomes are written in input order.
 */
class BackfillReceiptsIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void shouldJoinReceiptsOfTheInputAndWriteTheirOutcomesInInputOrder() throws IOException {
        List<String> events = new ArrayList<>();
        events.add(event("a1", "s1", "\"turn\":{\"seq\":0,\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"Fix it.\"}"));
        events.add(event("a2", "s1", "\"handoff\":{\"handoff_id\":\"h1\",\"to_agent\":\"claude-opus\",\"target\":\"LOCAL\"}"));
        events.add(event("b1", "s2", "\"turn\":{\"seq\":0,\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"Other.\"}"));
        events.add(event("b2", "s2", "\"handoff\":{\"handoff_id\":\"h2\",\"to_agent\":\"claude-opus\",\"target\":\"LOCAL\"}"));
        Path eventsOnly = dir.resolve("events.jsonl");
        Files.write(eventsOnly, events, StandardCharsets.UTF_8);
        // the events alone, as today: the snapshots whose hashes the receipts name
        Path plain = dir.resolve("plain.jsonl");
        CommandOutput run1 = CommandOutput.run("backfill", "-i", eventsOnly.toString(), "-o", plain.toString(),
                "--no-progress");
        assertThat(run1.exitCode()).as(run1.err()).isZero();
        List<JsonNode> snapshots = Files.readAllLines(plain).stream().map(BackfillReceiptsIT::json).toList();
        assertThat(snapshots).extracting(s -> s.get("snapshot_id").asText()).containsExactly("t1/s1/h1", "t1/s2/h2");
        String sha1 = snapshots.get(0).get("content_sha256").asText();

        List<String> lines = new ArrayList<>(events);
        lines.add(receipt("t1/s1/h1", sha1, null));          // line 5: acknowledges h1
        lines.add(receipt("t1/s2/h2", "0".repeat(64), null)); // line 6: not the hash Baton wrote
        lines.add(receipt("t1/s1/h1", sha1, "RESOLVED"));    // line 7: h1's outcome
        Path input = dir.resolve("with-receipts.jsonl");
        Files.write(input, lines, StandardCharsets.UTF_8);

        Path output = dir.resolve("snapshots.jsonl");
        Path dead = dir.resolve("dead.jsonl");
        Path outcomes = dir.resolve("outcomes.jsonl");
        CommandOutput run2 = CommandOutput.run("backfill", "-i", input.toString(), "-o", output.toString(),
                "--dead-letters", dead.toString(), "--outcomes", outcomes.toString(), "--no-progress");
        assertThat(run2.exitCode()).as(run2.err()).isZero();
        assertThat(run2.err()).contains("3 receipts → 2 outcomes");

        // no outcome before any hand-off: the snapshots are those of the events alone, byte for byte
        assertThat(Files.readAllBytes(output)).isEqualTo(Files.readAllBytes(plain));
        List<JsonNode> joined = Files.readAllLines(outcomes).stream().map(BackfillReceiptsIT::json).toList();
        assertThat(joined).extracting(o -> o.get("snapshot_id").asText()).containsExactly("t1/s1/h1", "t1/s1/h1");
        assertThat(joined.get(0).get("outcome").isNull()).isTrue();
        assertThat(joined.get(1).get("outcome").asText()).isEqualTo("RESOLVED");
        assertThat(joined.get(1).get("content_sha256").asText()).isEqualTo(sha1);
        assertThat(joined.get(1).get("receiver_model").asText()).isEqualTo("claude-opus");

        List<JsonNode> deadLetters = Files.readAllLines(dead).stream().map(BackfillReceiptsIT::json).toList();
        assertThat(deadLetters).hasSize(1);
        assertThat(deadLetters.get(0).get("error_code").asText()).isEqualTo("RECEIPT_HASH_MISMATCH");
        assertThat(deadLetters.get(0).get("source_line").asLong()).isEqualTo(6);
    }

    @Test
    void shouldRefuseAReceiptLineWithoutOutcomes() throws IOException {
        Path input = dir.resolve("in.jsonl");
        Files.write(input, List.of(receipt("t1/s1/h1", "0".repeat(64), null)), StandardCharsets.UTF_8);
        CommandOutput result = CommandOutput.run("backfill", "-i", input.toString(),
                "-o", dir.resolve("out.jsonl").toString(), "--no-progress");
        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("input line 1 is a hand-off receipt").contains("--outcomes");
    }

    private static String event(String id, String session, String payload) {
        return "{\"event_id\":\"" + id + "\",\"tenant_id\":\"t1\",\"session_id\":\"" + session
                + "\",\"occurred_at\":\"2026-11-30T09:00:00Z\"," + payload + "}";
    }

    private static String receipt(String snapshotId, String sha, String outcome) {
        return "{\"snapshot_id\":\"" + snapshotId + "\",\"content_sha256\":\"" + sha
                + "\",\"receiver_model\":\"claude-opus\",\"budget_tokens\":20000,"
                + "\"started_at\":\"2026-11-30T09:01:00Z\""
                + (outcome == null ? "" : ",\"outcome\":\"" + outcome + "\",\"tokens_spent\":1234") + "}";
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
