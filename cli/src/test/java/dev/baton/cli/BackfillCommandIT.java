package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;

import dev.baton.app.ExitCodes;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code baton backfill}: a JSONL replay through the real topology, reproducible to the byte. */
class BackfillCommandIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void shouldWriteSnapshotsInHandoffOrderSettleGapsAtTheEndAndReproduceByteForByte() throws IOException {
        Path input = dir.resolve("events.jsonl");
        List<String> lines = new ArrayList<>();
        // a gap that never fills (seq 1 is missing) and a hand-off waiting for seq 3, settled at the end of input
        lines.add(event("g1", "gap", "\"turn\":{\"seq\":0,\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"Task.\"}"));
        lines.add(event("g2", "gap", "\"turn\":{\"seq\":2,\"agent\":\"qwen-coder\",\"role\":\"ASSISTANT\",\"text\":\"After the gap.\"}"));
        lines.add(event("g3", "gap", "\"handoff\":{\"handoff_id\":\"h-late\",\"to_agent\":\"claude-opus\",\"target\":\"local\",\"as_of_seq\":3}"));
        lines.add("");                                         // blank: not a record
        lines.add("this is not JSON");                         // line 5: MALFORMED
        lines.add(event("o1", "own", "\"turn\":{\"seq\":0,\"agent\":\"claude-opus\",\"role\":\"USER\",\"text\":\"Hi.\"}"));
        lines.add(event("o2", "own", "\"handoff\":{\"handoff_id\":\"h-own\",\"to_agent\":\"claude-opus\",\"target\":\"LOCAL\"}"));
        lines.add(event("o3", "own", "\"handoff\":{\"handoff_id\":\"h-own\",\"to_agent\":\"claude-opus\",\"target\":\"LOCAL\"}")); // duplicate id
        lines.add(event("o4", "own", "\"closed\":{\"reason\":\"done\"}"));
        lines.add(event("o5", "own", "\"handoff\":{\"handoff_id\":\"h-after-close\",\"to_agent\":\"claude-opus\",\"target\":\"LOCAL\"}"));
        Files.write(input, lines, StandardCharsets.UTF_8);

        Path first = dir.resolve("first.jsonl");
        Path deadLetters = dir.resolve("dead.jsonl");
        CommandOutput run1 = CommandOutput.run("backfill", "-i", input.toString(), "-o", first.toString(),
                "--dead-letters", deadLetters.toString());
        assertThat(run1.exitCode()).as(run1.err()).isZero();

        List<JsonNode> snapshots = Files.readAllLines(first).stream().map(BackfillCommandIT::json).toList();
        assertThat(snapshots).extracting(s -> s.get("snapshot_id").asText())
                .containsExactly("t1/gap/h-late", "t1/own/h-own", "t1/own/h-after-close");
        assertThat(snapshots.get(0).get("truncations").toString()).contains("TURNS_MISSING");
        assertThat(snapshots.get(0).get("as_of_seq").asLong()).isEqualTo(2);

        List<JsonNode> dead = Files.readAllLines(deadLetters).stream().map(BackfillCommandIT::json).toList();
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).get("error_code").asText()).isEqualTo("MALFORMED");
        assertThat(dead.get(0).get("source_line").asLong()).isEqualTo(5);
        assertThat(dead.get(0).get("record").asText()).isEqualTo("this is not JSON");
        assertThat(dead.get(0).fieldNames()).toIterable()
                .containsExactly("error_code", "error_message", "source_line", "record");

        // the same input again, compressed this time: the same bytes once decompressed
        Path gzInput = dir.resolve("events.jsonl.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gzInput))) {
            out.write(Files.readAllBytes(input));
        }
        Path second = dir.resolve("second.jsonl.gz");
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        CommandOutput run2 = CommandOutput.run("backfill", "--input", gzInput.toString(), "--output", second.toString(),
                "--no-progress");
        assertThat(run2.exitCode()).as(run2.err()).isZero();
        assertThat(gunzip(second)).isEqualTo(Files.readAllBytes(first));
        assertThat(CommandOutput.lingeringThreads(before)).isEmpty();
        assertThat(dir.resolve(".partial-second.jsonl.gz")).doesNotExist();
    }

    @Test
    void shouldFailWithExitCode1WhenTheInputIsMissing() {
        CommandOutput result = CommandOutput.run("backfill", "-i", dir.resolve("nope.jsonl").toString(),
                "-o", dir.resolve("out.jsonl").toString());
        assertThat(result.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(result.err()).contains("no such input file");
    }

    @Test
    void shouldStopTheBrokerItStartedEarlyWhenTheInputTurnsOutUnreadable() throws IOException, InterruptedException {
        // the in-process broker starts before the input is opened (beside the line count): a .gz that is not gzip
        // fails after that, and the broker must not outlive the failed command
        Path input = dir.resolve("events.jsonl.gz");
        Files.writeString(input, "not gzip at all\n");
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        CommandOutput result = CommandOutput.run("backfill", "-i", input.toString(),
                "-o", dir.resolve("out.jsonl").toString(), "--no-progress");
        assertThat(result.exitCode()).as(result.err()).isEqualTo(ExitCodes.FAILED);
        assertThat(result.err()).contains("GZIP");
        // the command may fail before the broker is up: let a start that was left running finish, then look
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("replay-broker-start")) {
                t.join(120_000);
            }
        }
        assertThat(CommandOutput.lingeringThreads(before)).isEmpty();
    }

    private static String event(String id, String session, String payload) {
        return "{\"event_id\":\"" + id + "\",\"tenant_id\":\"t1\",\"session_id\":\"" + session
                + "\",\"occurred_at\":\"2026-11-30T09:00:00Z\"," + payload + "}";
    }

    private static byte[] gunzip(Path file) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return in.readAllBytes();
        }
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }
}
