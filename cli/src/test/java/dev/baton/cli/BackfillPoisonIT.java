package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code baton backfill} against poison: 10,000+ malformed lines of every kind the JSON input can carry, interleaved
 * with a good corpus, plus lines of 17 MiB and 100 MiB. Every line is accounted for (applied, duplicate, or
 * dead-lettered with its code at its line), the run goes on to the end, and the good sessions' snapshots are
 * byte-identical to a run of the good lines alone, but for their provenance (input line numbers) and content hash.
 *
 * <p>Two codes of the contract cannot come from a backfill's JSON lines: {@code UNKNOWN_SCHEMA} (Avro wire format
 * only) and {@code KEY_MISMATCH} (backfill derives the key from the line itself). {@code INTERNAL} is a bug, never
 * expected.
 */
class BackfillPoisonIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int GOOD_SESSIONS = 30;
    private static final int TURNS = 12;
    private static final int BAD_LINES = 11_800; // 14 of 16 kinds are dead-lettered: 10,300+ malformed lines

    @TempDir
    Path dir;

    /** One input line: its bytes and what should become of it. */
    private record Line(byte[] bytes, String expect) {
        static Line good(String text) {
            return new Line(text.getBytes(StandardCharsets.UTF_8), "ok");
        }
    }

    @Test
    @Timeout(600)
    void shouldAccountForEveryLineAndKeepTheGoodSnapshotsByteIdentical() throws IOException {
        List<Line> good = goodCorpus();
        List<Line> all = interleave(good);

        Path goodInput = write(dir.resolve("good.jsonl"), good);
        Path allInput = write(dir.resolve("all.jsonl"), all);
        assertThat(Files.size(allInput)).as("the 17 MiB and 100 MiB lines are in").isGreaterThan(117L << 20);

        Path goodOut = dir.resolve("good-out.jsonl");
        CommandOutput clean = CommandOutput.run("backfill", "-i", goodInput.toString(), "-o", goodOut.toString(),
            "--no-progress");
        assertThat(clean.exitCode()).as(clean.err()).isZero();

        Path allOut = dir.resolve("all-out.jsonl");
        Path dead = dir.resolve("dead.jsonl");
        CommandOutput poisoned = CommandOutput.run("backfill", "-i", allInput.toString(), "-o", allOut.toString(),
            "--dead-letters", dead.toString(), "--no-progress");
        assertThat(poisoned.exitCode()).as(poisoned.err()).isZero();

        // the good sessions' snapshots: the same bytes, poison or not — but for provenance (the input line numbers
        // they reflect, which the bad lines shift) and the content hash that covers it
        assertThat(withoutProvenance(allOut)).isEqualTo(withoutProvenance(goodOut));
        long handoffs = good.stream().filter(l -> new String(l.bytes(), StandardCharsets.UTF_8)
            .contains("\"handoff\"")).count();
        assertThat(Files.readAllLines(allOut)).hasSize((int) handoffs);

        // every dead letter at the line it names, with the code expected there; no line dead-lettered by mistake
        Map<Long, String> expected = new TreeMap<>();
        for (int i = 0; i < all.size(); i++) {
            String e = all.get(i).expect();
            if (!e.equals("ok") && !e.startsWith("duplicate")) {
                expected.put(i + 1L, e);
            }
        }
        Map<Long, String> actual = new TreeMap<>();
        List<Long> order = new ArrayList<>();
        for (String l : Files.readAllLines(dead)) {
            JsonNode d = JSON.readTree(l);
            long line = d.get("source_line").asLong();
            order.add(line);
            assertThat(actual.put(line, d.get("error_code").asText())).as("one dead letter per line").isNull();
            if (d.get("error_code").asText().equals("OVERSIZED")) {
                assertThat(d.get("record").asText().getBytes(StandardCharsets.UTF_8).length)
                    .as("an OVERSIZED dead letter keeps the first 64 KiB").isLessThanOrEqualTo(64 * 1024 * 3);
                assertThat(d.get("record").asText().length()).isLessThanOrEqualTo(64 * 1024);
            }
        }
        List<String> mismatches = new ArrayList<>();
        for (long line : new java.util.TreeSet<>(union(expected.keySet(), actual.keySet()))) {
            if (!java.util.Objects.equals(expected.get(line), actual.get(line))) {
                mismatches.add("line " + line + ": expected " + expected.get(line) + ", got " + actual.get(line));
            }
        }
        assertThat(mismatches).as("dead letters that differ from the expected ones").isEmpty();
        assertThat(order).as("dead letters in input order").isSorted();
        assertThat(expected.values()).contains("MALFORMED", "INVALID_ID", "INVALID_NAME", "INVALID_FIELD",
            "BAD_PAYLOAD", "OVERSIZED", "LATE_TURN");
        assertThat(expected).hasSizeGreaterThan(10_000);

        // in = applied + duplicates + dead-lettered (+ hand-offs answered)
        long duplicateTurns = all.stream().filter(l -> l.expect().equals("duplicate-turn")).count();
        long duplicateHandoffs = all.stream().filter(l -> l.expect().equals("duplicate-handoff")).count();
        long appliedTurns = all.stream().filter(l -> l.expect().equals("ok")
            && new String(l.bytes(), StandardCharsets.UTF_8).contains("\"turn\"")).count();
        String summary = poisoned.err();
        assertThat(number(summary, "([\\d,]+) records of")).isEqualTo(all.size());
        assertThat(number(summary, "([\\d,]+) turns applied")).isEqualTo(appliedTurns);
        assertThat(number(summary, "([\\d,]+) duplicate turns")).isEqualTo(duplicateTurns);
        assertThat(number(summary, "([\\d,]+) duplicate hand-offs")).isEqualTo(duplicateHandoffs);
        assertThat(number(summary, "([\\d,]+) dead letters")).isEqualTo(expected.size());
        assertThat(appliedTurns + duplicateTurns + handoffs + duplicateHandoffs + expected.size())
            .isEqualTo(all.size());
    }

    private static List<String> withoutProvenance(Path snapshots) throws IOException {
        List<String> out = new ArrayList<>();
        for (String l : Files.readAllLines(snapshots)) {
            com.fasterxml.jackson.databind.node.ObjectNode n = (com.fasterxml.jackson.databind.node.ObjectNode)
                JSON.readTree(l);
            n.remove("provenance");
            n.remove("content_sha256");
            out.add(n.toString());
        }
        return out;
    }

    private static java.util.Set<Long> union(java.util.Set<Long> a, java.util.Set<Long> b) {
        java.util.Set<Long> out = new java.util.HashSet<>(a);
        out.addAll(b);
        return out;
    }

    private static long number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as(regex + " in " + text).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }

    /** Sessions g00..g29: turns (some with tool trails, one with an ERROR step), hand-offs after turns 4, 8, 12. */
    private static List<Line> goodCorpus() {
        List<Line> lines = new ArrayList<>();
        for (int t = 0; t < TURNS; t++) {
            for (int s = 0; s < GOOD_SESSIONS; s++) {
                String session = String.format("g%02d", s);
                lines.add(Line.good(turn(session, t, t % 2 == 0 ? "USER" : "ASSISTANT", "qwen-coder",
                    "Turn " + t + " of " + session + ": " + "ünïcødé ✓ ".repeat(t + 1), t == 3 || t == 7)));
                if ((t + 1) % 4 == 0) {
                    int n = (t + 1) / 4;
                    String asOf = n == 2 ? ",\"as_of_seq\":" + t : "";
                    lines.add(Line.good(event(session, "h" + n, "\"handoff\":{\"handoff_id\":\"ho-" + n
                        + "\",\"from_agent\":\"qwen-coder\",\"to_agent\":\"claude-opus\",\"target\":\""
                        + (n == 3 ? "CLAUDE_CLI" : "LOCAL") + "\"" + asOf + "}")));
                }
            }
        }
        return lines;
    }

    /** After every good line, about 23 bad ones; the late-turn session; the two huge lines. */
    private static List<Line> interleave(List<Line> good) {
        List<Line> all = new ArrayList<>();
        int perGood = BAD_LINES / good.size() + 1;
        int bad = 0;
        for (int g = 0; g < good.size(); g++) {
            all.add(good.get(g));
            for (int k = 0; k < perGood; k++) {
                all.add(bad(bad++, all));
            }
            if (g == 40) {
                all.add(new Line(huge(17 << 20), "OVERSIZED"));
            }
            if (g == 200) {
                all.add(new Line(huge(100 << 20), "OVERSIZED"));
            }
        }
        all.addAll(lateTurnSession());
        return all;
    }

    private static Line bad(int i, List<Line> before) {
        String s = String.format("g%02d", i % GOOD_SESSIONS);
        String base = "{\"event_id\":\"bad-" + i + "\",\"tenant_id\":\"t1\",\"session_id\":\"" + s
            + "\",\"occurred_at\":\"2026-11-30T09:00:00Z\",";
        return switch (i % 16) {
            case 0 -> { // truncated JSON
                String whole = turn(s, 500 + i, "USER", "qwen-coder", "cut here", false);
                yield new Line(whole.substring(0, whole.length() / 2).getBytes(StandardCharsets.UTF_8), "MALFORMED");
            }
            case 1 -> new Line(concat(base + "\"turn\":{\"seq\":" + (500 + i)
                + ",\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"", new byte[] {(byte) 0xC3, 0x28},
                "\"}}"), "MALFORMED"); // invalid UTF-8
            case 2 -> new Line(concat(base + "\"turn\":{\"seq\":" + (500 + i)
                + ",\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"a", new byte[] {0, 0}, "b\"}}"),
                "MALFORMED"); // NUL bytes, unescaped
            case 3 -> new Line((base + "\"extra\":" + "[".repeat(3000) + "]".repeat(3000) + ",\"turn\":{\"seq\":"
                + (500 + i) + ",\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"deep\"}}")
                .getBytes(StandardCharsets.UTF_8), "MALFORMED"); // deeply nested
            case 4 -> new Line((base + "\"turn\":{\"seq\":123456789012345678901234567890"
                + ",\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"huge\"}}").getBytes(StandardCharsets.UTF_8),
                "INVALID_FIELD"); // a number no long holds
            case 5 -> new Line((base + "\"turn\":{\"seq\":1e400,\"agent\":\"qwen-coder\",\"role\":\"USER\","
                + "\"text\":\"huge\"}}").getBytes(StandardCharsets.UTF_8), "INVALID_FIELD");
            case 6 -> new Line(("{\"event_id\":\"bad-" + i + "\",\"tenant_id\":\"bad tenant\",\"session_id\":\"" + s
                + "\",\"occurred_at\":\"2026-11-30T09:00:00Z\",\"closed\":{}}").getBytes(StandardCharsets.UTF_8),
                "INVALID_ID");
            case 7 -> new Line((base + "\"handoff\":{\"handoff_id\":\"x-" + i + "\",\"to_agent\":\"Claude Opus\","
                + "\"target\":\"LOCAL\"}}").getBytes(StandardCharsets.UTF_8), "INVALID_NAME");
            case 8 -> new Line((base + "\"turn\":{\"seq\":-1,\"agent\":\"qwen-coder\",\"role\":\"USER\","
                + "\"text\":\"negative\"}}").getBytes(StandardCharsets.UTF_8), "INVALID_FIELD");
            case 9 -> new Line((base + "\"turn\":{\"seq\":" + (500 + i) + ",\"agent\":\"qwen-coder\","
                + "\"role\":\"WIZARD\",\"text\":\"x\"}}").getBytes(StandardCharsets.UTF_8), "INVALID_FIELD");
            case 10 -> new Line((base.substring(0, base.length() - 1) + "}").getBytes(StandardCharsets.UTF_8),
                "BAD_PAYLOAD"); // no payload at all
            case 11 -> new Line((base + "\"turn\":{\"seq\":" + (500 + i) + ",\"agent\":\"qwen-coder\","
                + "\"role\":\"USER\",\"text\":\"x\"},\"closed\":{}}").getBytes(StandardCharsets.UTF_8), "BAD_PAYLOAD");
            case 12 -> new Line((i % 3 == 0 ? "not JSON at all" : i % 3 == 1 ? "[1,2,3]" : "\"a string\"")
                .getBytes(StandardCharsets.UTF_8), "MALFORMED");
            case 13 -> i % 1600 == 13
                ? new Line((base + "\"turn\":{\"seq\":" + (500 + i) + ",\"agent\":\"qwen-coder\",\"role\":\"USER\","
                    + "\"text\":\"" + "x".repeat((1 << 20) + 10) + "\"}}").getBytes(StandardCharsets.UTF_8),
                    "OVERSIZED") // just over the 1 MiB limit
                : new Line((base + "\"turn\":{\"seq\":" + (500 + i) + ",\"agent\":\"qwen-coder\","
                    + "\"role\":\"USER\",\"text\":7}}").getBytes(StandardCharsets.UTF_8), "INVALID_FIELD");
            case 14 -> repeatOf(before, "\"turn\"", "duplicate-turn");
            default -> repeatOf(before, "\"handoff\"", "duplicate-handoff");
        };
    }

    /** An exact repeat of the latest good line of that kind already in the input (else a bad line). */
    private static Line repeatOf(List<Line> before, String kind, String expect) {
        for (int j = before.size() - 1; j >= 0; j--) {
            Line l = before.get(j);
            if (l.expect().equals("ok") && new String(l.bytes(), StandardCharsets.UTF_8).contains(kind)) {
                return new Line(l.bytes(), expect);
            }
        }
        return new Line("{}".getBytes(StandardCharsets.UTF_8), "INVALID_FIELD"); // required fields missing
    }

    /**
     * A session that records a missing range and then gets the missing turn: seq 0, then 2..1002 (more held turns
     * than the bound of 1,000: seq 1 is recorded missing), then seq 1, which is dead-lettered LATE_TURN.
     */
    private static List<Line> lateTurnSession() {
        List<Line> lines = new ArrayList<>();
        lines.add(Line.good(turn("late", 0, "USER", "qwen-coder", "start", false)));
        for (int seq = 2; seq <= 1002; seq++) {
            lines.add(Line.good(turn("late", seq, "USER", "qwen-coder", "held " + seq, false)));
        }
        lines.add(new Line(turn("late", 1, "USER", "qwen-coder", "too late", false)
            .getBytes(StandardCharsets.UTF_8), "LATE_TURN"));
        return lines;
    }

    /** A JSON line of the given size (a turn with a long text), never a valid record: it is over any limit. */
    private static byte[] huge(int size) {
        String head = "{\"event_id\":\"huge\",\"tenant_id\":\"t1\",\"session_id\":\"g00\","
            + "\"occurred_at\":\"2026-11-30T09:00:00Z\",\"turn\":{\"seq\":9999,\"agent\":\"qwen-coder\","
            + "\"role\":\"USER\",\"text\":\"";
        byte[] bytes = new byte[size];
        java.util.Arrays.fill(bytes, (byte) 'x');
        byte[] h = head.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(h, 0, bytes, 0, h.length);
        bytes[size - 3] = '"';
        bytes[size - 2] = '}';
        bytes[size - 1] = '}';
        return bytes;
    }

    private static String turn(String session, int seq, String role, String agent, String text, boolean error) {
        String trail = error
            ? ",\"trail\":[{\"call_id\":\"c" + seq + "\",\"tool\":\"run_tests\",\"arguments\":{\"path\":\"src\"},"
                + "\"result\":\"3 failed\",\"status\":\"ERROR\"}]"
            : "";
        return event(session, "t" + seq, "\"turn\":{\"seq\":" + seq + ",\"agent\":\"" + agent + "\",\"role\":\""
            + role + "\",\"text\":\"" + text + "\"" + trail + "}");
    }

    private static String event(String session, String id, String payload) {
        return "{\"event_id\":\"" + session + "-" + id + "\",\"tenant_id\":\"t1\",\"session_id\":\"" + session
            + "\",\"occurred_at\":\"2026-11-30T09:00:00Z\"," + payload + "}";
    }

    private static byte[] concat(String head, byte[] middle, String tail) {
        byte[] h = head.getBytes(StandardCharsets.UTF_8);
        byte[] t = tail.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[h.length + middle.length + t.length];
        System.arraycopy(h, 0, out, 0, h.length);
        System.arraycopy(middle, 0, out, h.length, middle.length);
        System.arraycopy(t, 0, out, h.length + middle.length, t.length);
        return out;
    }

    private static Path write(Path file, List<Line> lines) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            for (Line l : lines) {
                out.write(l.bytes());
                out.write('\n');
            }
        }
        return file;
    }
}
