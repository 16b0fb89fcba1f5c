package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.replay.HandoffTriggers;

/**
 * {@code baton backfill --handoff-at}: synthetic hand-offs at chosen points of recorded sessions, beside the real
 * ones, in input order, marked, reproducible to the byte; {@code --sample} by a hash of the session key.
 */
class BackfillTriggersIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SESSIONS = 6;
    private static final int TURNS = 10;

    @TempDir
    Path dir;

    @Test
    @Timeout(900)
    void shouldAddMarkedSyntheticHandoffsInInputOrderLeaveRealOnesAsTheyWereAndRepeatByteForByte()
        throws IOException {
        List<String> lines = input();
        Path input = dir.resolve("sessions.jsonl");
        Files.write(input, lines, StandardCharsets.UTF_8);

        Path plain = dir.resolve("plain.jsonl");
        CommandOutput base = CommandOutput.run("backfill", "-i", input.toString(), "-o", plain.toString(),
            "--no-progress");
        assertThat(base.exitCode()).as(base.err()).isZero();

        Path first = dir.resolve("first.jsonl");
        Path dead = dir.resolve("dead.jsonl");
        String[] triggers = {"--handoff-at", "every:4", "--handoff-at", "error", "--handoff-at", "last",
            "--handoff-to", "claude-opus", "--no-progress"};
        CommandOutput run1 = CommandOutput.run(concat(new String[] {"backfill", "-i", input.toString(), "-o",
            first.toString(), "--dead-letters", dead.toString()}, triggers));
        assertThat(run1.exitCode()).as(run1.err()).isZero();

        List<JsonNode> out = Files.readAllLines(first).stream().map(BackfillTriggersIT::json).toList();
        assertThat(out).extracting(s -> s.get("snapshot_id").asText()).containsExactlyElementsOf(expectedOrder(lines));
        for (JsonNode s : out) {
            String id = s.get("handoff_id").asText();
            assertThat(s.get("synthetic").asBoolean()).as(id).isEqualTo(id.startsWith(HandoffTriggers.ID_PREFIX));
            if (id.startsWith(HandoffTriggers.ID_PREFIX + "error:") || id.startsWith(HandoffTriggers.ID_PREFIX
                + "every:")) {
                long seq = Long.parseLong(id.substring(id.lastIndexOf(':') + 1));
                assertThat(s.get("as_of_seq").asLong()).as(id).isEqualTo(seq);
                assertThat(s.get("to_agent").asText()).isEqualTo("claude-opus");
            }
            if (id.equals(HandoffTriggers.ID_PREFIX + "last")) {
                assertThat(s.get("as_of_seq").asLong()).isEqualTo(TURNS - 1);
            }
        }
        // a marked snapshot's content hash still verifies (the mark is part of what it covers)
        for (String l : Files.readAllLines(first)) {
            var record = dev.baton.serde.AvroJson.read(l.getBytes(StandardCharsets.UTF_8),
                dev.baton.avro.ContextSnapshot.class);
            assertThat(record.getContentSha256()).isEqualTo(dev.baton.egress.SnapshotHash.of(record));
        }
        // the error points show the failing step to the receiver
        JsonNode error = out.stream().filter(s -> s.get("snapshot_id").asText().equals("t1/e0/"
            + HandoffTriggers.ID_PREFIX + "error:3")).findFirst().orElseThrow();
        assertThat(error.get("messages").toString()).contains("pytest: 3 failed");

        // the real hand-offs are served exactly as without triggers (the one using a reserved id is rejected)
        List<String> realWith = Files.readAllLines(first).stream()
            .filter(l -> !json(l).get("synthetic").asBoolean()).toList();
        List<String> realWithout = Files.readAllLines(plain).stream()
            .filter(l -> !json(l).get("handoff_id").asText().startsWith(HandoffTriggers.ID_PREFIX)).toList();
        assertThat(realWith).isEqualTo(realWithout).hasSize(SESSIONS);
        List<JsonNode> rejected = Files.readAllLines(dead).stream().map(BackfillTriggersIT::json).toList();
        assertThat(rejected).hasSize(1);
        assertThat(rejected.get(0).get("error_code").asText()).isEqualTo("INVALID_ID");
        assertThat(rejected.get(0).get("source_line").asLong()).isEqualTo(lines.size());

        // same input, same triggers: the same bytes
        Path second = dir.resolve("second.jsonl");
        CommandOutput run2 = CommandOutput.run(concat(new String[] {"backfill", "-i", input.toString(), "-o",
            second.toString()}, triggers));
        assertThat(run2.exitCode()).as(run2.err()).isZero();
        assertThat(Files.readAllBytes(second)).isEqualTo(Files.readAllBytes(first));

        // --sample: the sessions a hash of the key chooses, nothing else
        Path sampled = dir.resolve("sampled.jsonl");
        CommandOutput run3 = CommandOutput.run("backfill", "-i", input.toString(), "-o", sampled.toString(),
            "--sample", "0.5", "--handoff-at", "last", "--handoff-to", "claude-opus", "--no-progress");
        assertThat(run3.exitCode()).as(run3.err()).isZero();
        Set<String> expectedSessions = new LinkedHashSet<>();
        for (int s = 0; s < SESSIONS; s++) {
            if (HandoffTriggers.sampled("t1/e" + s, 0.5)) {
                expectedSessions.add("e" + s);
            }
        }
        assertThat(expectedSessions).as("the sample is neither empty nor everything").isNotEmpty()
            .hasSizeLessThan(SESSIONS);
        Set<String> sessions = new LinkedHashSet<>();
        Files.readAllLines(sampled).forEach(l -> sessions.add(json(l).get("session_id").asText()));
        assertThat(sessions).isEqualTo(expectedSessions);
    }

    /** Sessions e0..e5 of 10 turns; ERROR steps at seq 3 and 7 in e0..e2; a real hand-off after seq 5. */
    private static List<String> input() {
        List<String> lines = new ArrayList<>();
        for (int t = 0; t < TURNS; t++) {
            for (int s = 0; s < SESSIONS; s++) {
                boolean error = s < 3 && (t == 3 || t == 7);
                String role = t % 2 == 0 ? "USER" : "ASSISTANT";
                String agent = t % 2 == 0 ? "user" : "qwen-coder";
                String trail = error
                    ? ",\"trail\":[{\"call_id\":\"c" + t + "\",\"tool\":\"run_tests\",\"arguments\":{\"path\":\"src\"},"
                        + "\"result\":\"pytest: 3 failed\",\"status\":\"ERROR\"}]"
                    : "";
                lines.add(event(s, "t" + t, "\"turn\":{\"seq\":" + t + ",\"agent\":\"" + agent + "\",\"role\":\""
                    + role + "\",\"text\":\"step " + t + "\"" + trail + "}"));
                if (t == 5) {
                    lines.add(event(s, "h", "\"handoff\":{\"handoff_id\":\"real-1\",\"from_agent\":\"qwen-coder\","
                        + "\"to_agent\":\"claude-opus\",\"target\":\"LOCAL\"}"));
                }
            }
        }
        // a real hand-off that takes a reserved id: dead-lettered while triggers are on
        lines.add(event(1, "r", "\"handoff\":{\"handoff_id\":\"" + HandoffTriggers.ID_PREFIX + "error:3\","
            + "\"to_agent\":\"claude-opus\",\"target\":\"LOCAL\"}"));
        return lines;
    }

    /** The snapshot ids in the order the input asks for them. */
    private static List<String> expectedOrder(List<String> lines) {
        List<String> ids = new ArrayList<>();
        Set<String> sessions = new LinkedHashSet<>();
        for (String l : lines) {
            JsonNode e = json(l);
            String key = "t1/" + e.get("session_id").asText();
            sessions.add(key);
            if (e.has("turn")) {
                long seq = e.at("/turn/seq").asLong();
                if ((seq + 1) % 4 == 0) {
                    ids.add(key + "/" + HandoffTriggers.ID_PREFIX + "every:" + seq);
                }
                if (e.at("/turn").has("trail")) {
                    ids.add(key + "/" + HandoffTriggers.ID_PREFIX + "error:" + seq);
                }
            } else if (!e.at("/handoff/handoff_id").asText().startsWith(HandoffTriggers.ID_PREFIX)) {
                ids.add(key + "/" + e.at("/handoff/handoff_id").asText());
            }
        }
        sessions.forEach(k -> ids.add(k + "/" + HandoffTriggers.ID_PREFIX + "last"));
        return ids;
    }

    private static String event(int session, String id, String payload) {
        return "{\"event_id\":\"e" + session + "-" + id + "\",\"tenant_id\":\"t1\",\"session_id\":\"e" + session
            + "\",\"occurred_at\":\"2026-11-30T09:00:00Z\"," + payload + "}";
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }
}
