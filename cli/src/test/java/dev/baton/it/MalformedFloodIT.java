package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.avro.TenantPolicy;
import dev.baton.egress.ContextSnapshotReader;
import dev.baton.egress.SnapshotEncoder;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.serde.HttpSchemaRegistryClient;

/**
 * A malformed-record flood through a real {@code baton run} (a child JVM) on the in-process broker and the
 * real schema registry, once per input format. 10,200 bad records (5,100 per format) of every kind the format can carry (every contract
 * code but {@code INTERNAL}, which is a bug: truncated, invalid UTF-8, NUL bytes, deep nesting, huge numbers, oversize
 * records; for Avro wrong magic bytes and unknown schema ids too) are interleaved with a good corpus on the good
 * sessions' own partitions. Then:
 * <ul>
 *   <li>every bad record is dead-lettered once, at its offset, with its expected code in the machine-readable header
 *       (an {@code OVERSIZED} one keeps at most 64 KiB and says the original size), and no good record is;</li>
 *   <li>Baton's own counters ({@code /metrics}) account for every input record: in = applied turns + duplicate turns
 *       + duplicate hand-offs + snapshots + dead letters, with the expected figure for each;</li>
 *   <li>each good hand-off gives exactly one snapshot, byte-identical to the engine's direct rendering of the good
 *       records alone (audit fields set aside: provenance names the offsets this run read);</li>
 *   <li>the service never stops and is ready at the end, and its start-up log has no warning that the processing
 *       exception handler is off for the global thread.</li>
 * </ul>
 * The figures are printed (reported in docs/operations.md).
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class MalformedFloodIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    static final RealSchemaRegistry registry = new RealSchemaRegistry();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MIB = 1024 * 1024;
    private static final int GOOD_SESSIONS = 30;
    /** Per format: 10,200 bad records through {@code baton run} in all (and 2 LATE_TURN). */
    private static final int BAD_RECORDS = 5_100;
    /** Placeholder for {@link #ARGUMENTS_OBJECT} in an event, replaced by it in the line (JSON form: an object). */
    private static final String ARGUMENTS = "@arguments@";
    /** Arguments as received: key order, a 900-digit integer, 1e400, 1.0 and non-ASCII keys are kept as they are. */
    private static final String ARGUMENTS_OBJECT = "{\"path\":\"/src/Main.java\",\"n\":" + "9".repeat(900)
            + ",\"ключ\":1e400,\"f\":1.0,\"a\":[true,null]}";
    private static final String GLOBAL_WARNING = "Processing exception handler is not enabled for the GlobalThread";
    private final ContractEvents events = new ContractEvents("2026-12-02T00:00:00Z");

    @TempDir
    Path dir;

    /** One input record and what should become of it: "ok", "duplicate-turn", "duplicate-handoff" or a code. */
    private record Rec(byte[] key, byte[] value, String expect, String kind, String goodLine) {
    }

    @Test
    void shouldDeadLetterEveryMalformedAvroRecordWithItsCodeAndKeepTheGoodSnapshotsIdentical() throws Exception {
        flood("avro");
    }

    @Test
    void shouldDeadLetterEveryMalformedJsonRecordWithItsCodeAndKeepTheGoodSnapshotsIdentical() throws Exception {
        flood("json");
    }

    private void flood(String format) throws Exception {
        String in = "flood-" + format + ".session-events";
        String out = "flood-" + format + ".context-snapshots";
        String dlq = "flood-" + format + ".dead-letters";
        String policies = "flood-" + format + ".tenant-policies";
        kafka.kafka().createTopics(3, Map.of("max.message.bytes", Integer.toString(4 * MIB)), in);
        kafka.kafka().createTopics(3, Map.of("max.message.bytes", Integer.toString(8 * MIB)), out, dlq);
        kafka.kafka().createTopics(1, Map.of("cleanup.policy", "compact"), policies);
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(registry.url());
        SessionEventEncoder encoder = SessionEventEncoder.forFormat(format, client);

        List<Rec> good = goodCorpus(in, encoder);
        List<Rec> bad = badRecords(format, in, encoder, client, good);
        List<Rec> all = interleave(good, bad, new Random(20261202));

        try (BatonRunProcess baton = start(format, in, out, dlq, policies)) {
            baton.awaitReady(Duration.ofSeconds(120));
            long started = System.nanoTime();
            Map<TopicPartition, Map<Long, Rec>> byOffset = send(in, all);

            // every good hand-off once, every bad record once
            long handoffs = good.stream().filter(r -> r.expect().equals("ok") && r.kind().equals("handoff")).count();
            Map<String, byte[]> snapshots = new LinkedHashMap<>();
            List<ConsumerRecord<byte[], byte[]>> deadLetters = new ArrayList<>();
            int expectedDeadLetters = bad.size() + (int) count(good, "LATE_TURN");
            await(out, dlq, snapshots, deadLetters, (int) handoffs, expectedDeadLetters, Duration.ofMinutes(5), baton);
            double seconds = (System.nanoTime() - started) / 1e9;

            // 1. each bad record dead-lettered once, at its offset, with its code; no good record dead-lettered
            List<String> wrong = new ArrayList<>();
            Map<String, Integer> codes = new TreeMap<>();
            Map<String, Rec> seen = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> d : deadLetters) {
                String code = header(d, "baton.error.code");
                codes.merge(code, 1, Integer::sum);
                assertThat(header(d, "baton.source.topic")).isEqualTo(in);
                TopicPartition tp = new TopicPartition(in, Integer.parseInt(header(d, "baton.source.partition")));
                long offset = Long.parseLong(header(d, "baton.source.offset"));
                Rec rec = byOffset.getOrDefault(tp, Map.of()).get(offset);
                assertThat(seen.put(tp + "@" + offset, rec)).as("one dead letter per record: %s@%d", tp, offset).isNull();
                if (rec == null || !rec.expect().equals(code)) {
                    wrong.add(tp + "@" + offset + " (" + (rec == null ? "?" : rec.kind()) + "): expected "
                            + (rec == null ? "?" : rec.expect()) + ", got " + code + ": "
                            + header(d, "baton.error.message"));
                    continue;
                }
                if (code.equals("OVERSIZED")) {
                    assertThat(d.value().length).as("an OVERSIZED dead letter keeps the first 64 KiB")
                            .isEqualTo(64 * 1024);
                    assertThat(header(d, "baton.error.original-size")).isEqualTo(Integer.toString(rec.value().length));
                } else {
                    assertThat(d.value()).as(rec.kind()).isEqualTo(rec.value());
                }
                assertThat(d.key()).as(rec.kind()).isEqualTo(rec.key());
            }
            assertThat(wrong).as("dead letters with another code than expected (%d)", wrong.size()).isEmpty();
            Map<String, Integer> expectedCodes = new TreeMap<>();
            all.stream().filter(r -> r.expect().matches("[A-Z_]+")).forEach(r -> expectedCodes.merge(r.expect(), 1,
                    Integer::sum));
            assertThat(codes).isEqualTo(expectedCodes);
            assertThat(codes).doesNotContainKey("INTERNAL");

            // 2. Baton's counters account for every record read
            Map<String, Double> metrics = awaitCounters(baton, all.size());
            long turns = good.stream().filter(r -> r.expect().equals("ok") && r.kind().equals("turn")).count();
            assertThat(metrics.get("applied")).isEqualTo((double) turns);
            assertThat(metrics.get("duplicate-turns")).isEqualTo((double) count(all, "duplicate-turn"));
            assertThat(metrics.get("duplicate-handoffs")).isEqualTo((double) count(all, "duplicate-handoff"));
            assertThat(metrics.get("snapshots")).isEqualTo((double) handoffs);
            for (Map.Entry<String, Integer> e : expectedCodes.entrySet()) {
                assertThat(metrics.get("dead-letters." + e.getKey())).as(e.getKey()).isEqualTo((double) e.getValue());
            }

            // 3. the good snapshots: exactly the engine's rendering of the good records alone
            List<String> goodLines = good.stream().filter(r -> r.goodLine() != null).map(Rec::goodLine).toList();
            Map<String, byte[]> expected = EngineRendering.renderDirectly(goodLines);
            assertThat(snapshots.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
            ContextSnapshotReader reader = ContextSnapshotReader.forFormat(format, client);
            SnapshotEncoder json = SnapshotEncoder.json();
            for (Map.Entry<String, byte[]> e : expected.entrySet()) {
                byte[] actual = json.encode(out, reader.readSnapshot(snapshots.get(e.getKey())));
                assertThat(EngineRendering.withoutAudit(actual)).as(e.getKey())
                        .isEqualTo(EngineRendering.withoutAudit(e.getValue()));
            }

            // 4. still running and ready; no start-up warning about the global thread's handler
            assertThat(baton.isAlive()).isTrue();
            assertThat(baton.ready()).isTrue();
            assertThat(baton.log()).doesNotContain(GLOBAL_WARNING);

            System.out.printf(java.util.Locale.ROOT, "malformed flood through baton run (%s): %,d records in "
                    + "(%,d good, %,d bad), %,d turns applied, %,d duplicate turns, %,d duplicate hand-offs, %,d snapshots, "
                    + "%,d dead letters %s, 0 lost, 0 INTERNAL; %.1f s from the first send to the last output%n", format,
                    all.size(), good.size() - count(good, "LATE_TURN"), bad.size() + count(good, "LATE_TURN"), turns,
                    count(all, "duplicate-turn"), count(all, "duplicate-handoff"), handoffs, deadLetters.size(), codes,
                    seconds);
        }
    }

    // ---- the good corpus -------------------------------------------------------------------------------------------

    /**
     * 30 sessions of 8 turns (tool steps with a 900-digit number, 1e400 and non-ASCII keys in their arguments, a NUL character
     * in a text), two hand-offs each, a repeated turn and a repeated hand-off; plus a session whose held turns pass the
     * bound (seq 0, then 2..1002), so that its seq 1 arrives late ({@code LATE_TURN}, the one bad record here).
     */
    private List<Rec> goodCorpus(String topic, SessionEventEncoder encoder) throws IOException {
        List<Rec> out = new ArrayList<>();
        for (int s = 0; s < GOOD_SESSIONS; s++) {
            String session = "s" + s;
            out.add(good(topic, encoder, turn(session, 0, "user", "USER", "task of session " + s + " \u0000 with a NUL")));
            for (int seq = 1; seq < 8; seq++) {
                String agent = seq % 2 == 0 ? "claude" : "qwen";
                ObjectNode t = turn(session, seq, agent, "ASSISTANT", "step " + seq + " of " + s + " – ünïcödé 漢字");
                if (seq % 3 == 1) {
                    ((ObjectNode) t.get("turn")).putArray("trail").addObject().put("call_id", "c" + seq)
                            .put("tool", "read_file")
                            .put("arguments", ARGUMENTS)
                            .put("result", "contents " + seq).put("status", "OK");
                }
                out.add(good(topic, encoder, t));
                if (seq == 3) {
                    out.add(good(topic, encoder, handoff(session, "h1", "claude")));
                    out.add(rec(topic, encoder, turn(session, 2, "claude", "ASSISTANT", "a second copy"), "duplicate-turn",
                            "turn"));
                }
            }
            out.add(good(topic, encoder, handoff(session, "h2", "qwen")));
            out.add(rec(topic, encoder, handoff(session, "h1", "claude"), "duplicate-handoff", "handoff"));
        }
        out.add(good(topic, encoder, turn("late", 0, "user", "USER", "a session with a gap")));
        for (int seq = 2; seq <= 1002; seq++) {
            out.add(good(topic, encoder, turn("late", seq, "qwen", "ASSISTANT", "held " + seq)));
        }
        out.add(bad(topic, encoder, turn("late", 1, "qwen", "ASSISTANT", "too late"), "LATE_TURN", "late-turn"));
        out.add(good(topic, encoder, handoff("late", "h-late", "claude")));
        return out;
    }

    private Rec good(String topic, SessionEventEncoder encoder, ObjectNode event) throws IOException {
        return rec(topic, encoder, event, "ok", event.has("turn") ? "turn" : "handoff");
    }

    private Rec rec(String topic, SessionEventEncoder encoder, ObjectNode event, String expect, String kind)
            throws IOException {
        String line = JSON.writeValueAsString(event).replace("\"" + ARGUMENTS + "\"", ARGUMENTS_OBJECT);
        return new Rec(key(event), encoder.encode(topic, line.getBytes(StandardCharsets.UTF_8)), expect, kind, line);
    }

    // ---- the bad records -------------------------------------------------------------------------------------------

    /** A bad record that still encodes in the format (its fault is in the content). */
    private Rec bad(String topic, SessionEventEncoder encoder, ObjectNode event, String code, String kind)
            throws IOException {
        return new Rec(key(event), encoder.encode(topic, JSON.writeValueAsBytes(event)), code, kind, null);
    }

    /** A bad record under the key of {@code template} (a good record of a good session). */
    private static Rec raw(Rec template, byte[] value, String code, String kind) {
        return new Rec(template.key(), value, code, kind, null);
    }

    /** One generator per kind; the kinds take turns until there are {@link #BAD_RECORDS}. */
    private List<Rec> badRecords(String format, String topic, SessionEventEncoder encoder, HttpSchemaRegistryClient
            client, List<Rec> good) throws IOException {
        Random random = new Random(format.hashCode());
        List<Generator> kinds = new ArrayList<>(List.of(
                (i, k) -> bad(topic, encoder, withKey(turn("s" + (i % GOOD_SESSIONS), 100 + i, "qwen", "ASSISTANT",
                        "wrong key"), "acme/s" + ((i + 1) % GOOD_SESSIONS)), "KEY_MISMATCH", "key-mismatch"),
                (i, k) -> bad(topic, encoder, turn("bad session " + i, 0, "qwen", "USER", "x"), "INVALID_ID",
                        "id-with-spaces"),
                (i, k) -> bad(topic, encoder, withTenant(turn("s" + (i % GOOD_SESSIONS), 0, "qwen", "USER", "x"),
                        "ac\u0000me"), "INVALID_ID", "id-with-nul"),
                (i, k) -> bad(topic, encoder, turn("s" + (i % GOOD_SESSIONS), 200 + i, "not a name!", "ASSISTANT", "x"),
                        "INVALID_NAME", "agent-name"),
                (i, k) -> bad(topic, encoder, turn("s" + (i % GOOD_SESSIONS), 200 + i, "a".repeat(65), "ASSISTANT", "x"),
                        "INVALID_NAME", "agent-name-65"),
                (i, k) -> bad(topic, encoder, turn("s" + (i % GOOD_SESSIONS), -1 - i, "qwen", "ASSISTANT", "x"),
                        "INVALID_FIELD", "negative-seq"),
                (i, k) -> bad(topic, encoder, withArguments(i, "[1,2,3]"), "INVALID_FIELD", "arguments-array"),
                (i, k) -> bad(topic, encoder, withArguments(i, "{\"path\":\"/tm"), "INVALID_FIELD",
                        "arguments-truncated"),
                (i, k) -> bad(topic, encoder, withArguments(i, "{\"a\":" + "[".repeat(5_000) + "]".repeat(5_000) + "}"),
                        "INVALID_FIELD", "arguments-nested-5000"),
                (i, k) -> {
                    ObjectNode e = envelope("s" + (i % GOOD_SESSIONS));
                    return bad(topic, encoder, e, "BAD_PAYLOAD", "no-payload");
                },
                (i, k) -> {
                    ObjectNode e = turn("s" + (i % GOOD_SESSIONS), 300 + i, "qwen", "ASSISTANT", "x");
                    e.putObject("handoff").put("handoff_id", "hx" + i).put("to_agent", "claude").put("target", "LOCAL");
                    return bad(topic, encoder, e, "BAD_PAYLOAD", "two-payloads");
                }));
        if (format.equals("json")) {
            kinds.addAll(List.of(
                    (i, k) -> raw(k, Arrays.copyOf(k.value(), 1 + (i * 7919) % (k.value().length - 1)), "MALFORMED",
                            "truncated-json"),
                    (i, k) -> raw(k, replaceFirst(k.value(), "task".getBytes(StandardCharsets.UTF_8),
                            new byte[] {(byte) 0xC3, 0x28, (byte) 0xFF}), "MALFORMED", "invalid-utf8"),
                    (i, k) -> raw(k, replaceFirst(k.value(), "task".getBytes(StandardCharsets.UTF_8),
                            new byte[] {'t', 0, 's', 'k'}), "MALFORMED", "raw-nul-byte"),
                    (i, k) -> raw(k, ("{\"x\":" + "[".repeat(20_000) + "]".repeat(20_000) + "}")
                            .getBytes(StandardCharsets.UTF_8), "MALFORMED", "nested-20000"),
                    (i, k) -> raw(k, new byte[0], "MALFORMED", "empty"),
                    (i, k) -> raw(k, null, "MALFORMED", "tombstone"),
                    (i, k) -> raw(k, "[1,2]".getBytes(StandardCharsets.UTF_8), "MALFORMED", "array"),
                    (i, k) -> raw(k, concat(k.value(), k.value()), "MALFORMED", "two-objects"),
                    (i, k) -> raw(k, concat(new byte[] {0, 0, 0, 0, 1}, k.value()), "MALFORMED", "avro-in-json"),
                    (i, k) -> bad(topic, encoder, withRole(i, "WIZARD"), "INVALID_FIELD", "unknown-enum"),
                    (i, k) -> {
                        ObjectNode e = turn("s" + (i % GOOD_SESSIONS), 0, "qwen", "USER", "x");
                        ((ObjectNode) e.get("turn")).remove("seq");
                        return bad(topic, encoder, e, "INVALID_FIELD", "missing-seq");
                    },
                    (i, k) -> raw(k, replaceFirst(k.value(), "\"seq\":0".getBytes(StandardCharsets.UTF_8),
                            ("\"seq\":" + "9".repeat(40)).getBytes(StandardCharsets.UTF_8)), "INVALID_FIELD",
                            "seq-40-digits"),
                    (i, k) -> raw(k, replaceFirst(k.value(), "\"seq\":0".getBytes(StandardCharsets.UTF_8),
                            "\"seq\":1e400".getBytes(StandardCharsets.UTF_8)), "INVALID_FIELD", "seq-1e400"),
                    // Jackson's limit on a number literal (1,000 characters) holds in arguments too, though Baton
                    // never converts them: the record cannot be read (docs/operations.md)
                    (i, k) -> raw(k, replaceFirst(k.value(), "\"text\":".getBytes(StandardCharsets.UTF_8),
                            ("\"x\":{\"n\":" + "7".repeat(5_000) + "},\"text\":").getBytes(StandardCharsets.UTF_8)),
                            "MALFORMED", "number-5000-digits")));
        } else {
            int policyId = client.register("flood-not-a-session-event-value", TenantPolicy.getClassSchema());
            kinds.addAll(List.of(
                    (i, k) -> raw(k, Arrays.copyOf(k.value(), 5 + (i * 7919) % (k.value().length - 5)), "MALFORMED",
                            "truncated-avro"),
                    (i, k) -> raw(k, k.goodLine().getBytes(StandardCharsets.UTF_8), "MALFORMED", "json-in-avro"),
                    (i, k) -> {
                        byte[] v = k.value().clone();
                        v[0] = 1;
                        return raw(k, v, "MALFORMED", "wrong-magic");
                    },
                    (i, k) -> raw(k, new byte[] {0, 0, 0}, "MALFORMED", "short"),
                    (i, k) -> raw(k, new byte[0], "MALFORMED", "empty"),
                    (i, k) -> raw(k, null, "MALFORMED", "tombstone"),
                    (i, k) -> raw(k, concat(k.value(), new byte[] {1, 2, 3}), "MALFORMED", "trailing-bytes"),
                    // the header, then event_id's length as a varint of about 2^31: far beyond the record
                    (i, k) -> raw(k, concat(Arrays.copyOf(k.value(), 5), new byte[] {(byte) 0xFE, (byte) 0xFF,
                            (byte) 0xFF, (byte) 0xFF, 0x0F}), "MALFORMED", "huge-length"),
                    (i, k) -> raw(k, concat(Arrays.copyOf(k.value(), 5), new byte[] {3}), "MALFORMED", "negative-length"),
                    (i, k) -> raw(k, replaceFirst(k.value(), "task".getBytes(StandardCharsets.UTF_8),
                            new byte[] {(byte) 0xC3, 0x28, (byte) 0xFF, 'k'}), "MALFORMED", "invalid-utf8"),
                    (i, k) -> {
                        byte[] v = k.value().clone();
                        v[1] = 0x7f; // schema id 0x7fxxxxxx: unknown to the registry
                        return raw(k, v, "UNKNOWN_SCHEMA", "unknown-schema-id");
                    },
                    (i, k) -> {
                        byte[] v = k.value().clone();
                        v[1] = (byte) (policyId >>> 24);
                        v[2] = (byte) (policyId >>> 16);
                        v[3] = (byte) (policyId >>> 8);
                        v[4] = (byte) policyId;
                        return raw(k, v, "UNKNOWN_SCHEMA", "schema-of-another-record");
                    }));
        }
        List<Rec> sessionStarts = good.stream().filter(r -> r.kind().equals("turn") && r.goodLine() != null
                && r.goodLine().contains("\"seq\":0") && r.goodLine().contains("task of session")).toList();
        List<Rec> out = new ArrayList<>();
        for (int i = 0; out.size() < BAD_RECORDS - 6; i++) {
            Rec template = sessionStarts.get(random.nextInt(sessionStarts.size()));
            out.add(kinds.get(i % kinds.size()).make(i, template));
        }
        // a few records over the 1 MiB limit (the topic takes 4 MiB)
        for (int i = 0; i < 6; i++) {
            ObjectNode big = turn("s" + i, 400 + i, "qwen", "ASSISTANT", "x".repeat(MIB + i * 100_000));
            out.add(bad(topic, encoder, big, "OVERSIZED", "oversized"));
        }
        return out;
    }

    @FunctionalInterface
    private interface Generator {
        Rec make(int i, Rec template) throws IOException;
    }

    /** Merges the two lists at random, each keeping its own order (so every session's good events stay in order). */
    private static List<Rec> interleave(List<Rec> good, List<Rec> bad, Random random) {
        List<Rec> out = new ArrayList<>(good.size() + bad.size());
        int g = 0;
        int b = 0;
        while (g < good.size() || b < bad.size()) {
            int left = good.size() - g + bad.size() - b;
            if (g < good.size() && random.nextInt(left) < good.size() - g) out.add(good.get(g++));
            else out.add(bad.get(b++));
        }
        return out;
    }

    // ---- events ----------------------------------------------------------------------------------------------------

    private ObjectNode envelope(String session) {
        return events.envelope("acme", session);
    }

    private ObjectNode turn(String session, long seq, String agent, String role, String text) {
        return events.turn("acme", session, seq, agent, role, text);
    }

    private ObjectNode handoff(String session, String id, String to) {
        return events.handoff("acme", session, id, to);
    }

    private ObjectNode withArguments(int i, String arguments) {
        ObjectNode t = turn("s" + (i % GOOD_SESSIONS), 500 + i, "qwen", "ASSISTANT", "x");
        ArrayNode trail = ((ObjectNode) t.get("turn")).putArray("trail");
        trail.addObject().put("call_id", "c" + i).put("tool", "read").put("arguments", arguments).put("status", "OK");
        return t;
    }

    private ObjectNode withRole(int i, String role) {
        ObjectNode t = turn("s" + (i % GOOD_SESSIONS), 600 + i, "qwen", "ASSISTANT", "x");
        ((ObjectNode) t.get("turn")).put("role", role);
        return t;
    }

    private static ObjectNode withTenant(ObjectNode event, String tenant) {
        event.put("tenant_id", tenant);
        return event;
    }

    /** Marks an event to be sent under another key (see {@link #key}). */
    private static ObjectNode withKey(ObjectNode event, String key) {
        event.put("__key", key);
        return event;
    }

    private static byte[] key(ObjectNode event) {
        JsonNode forced = event.remove("__key");
        String key = forced != null ? forced.asText()
                : event.path("tenant_id").asText() + "/" + event.path("session_id").asText();
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] replaceFirst(byte[] haystack, byte[] needle, byte[] with) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                byte[] out = new byte[haystack.length - needle.length + with.length];
                System.arraycopy(haystack, 0, out, 0, i);
                System.arraycopy(with, 0, out, i, with.length);
                System.arraycopy(haystack, i + needle.length, out, i + with.length, haystack.length - i - needle.length);
                return out;
            }
        }
        throw new IllegalArgumentException("not found: " + new String(needle, StandardCharsets.UTF_8));
    }

    private static long count(List<Rec> records, String expect) {
        return records.stream().filter(r -> r.expect().equals(expect)).count();
    }

    // ---- Kafka -----------------------------------------------------------------------------------------------------

    /** Sends in order; returns each record by partition and offset. */
    private static Map<TopicPartition, Map<Long, Rec>> send(String topic, List<Rec> records) throws Exception {
        java.util.Properties p = kafka.producerProps(null);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(4 * MIB));
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (Rec r : records) {
                sent.add(producer.send(new ProducerRecord<>(topic, r.key(), r.value())));
            }
            producer.flush();
        }
        Map<TopicPartition, Map<Long, Rec>> out = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            RecordMetadata m = sent.get(i).get();
            out.computeIfAbsent(new TopicPartition(m.topic(), m.partition()), x -> new HashMap<>()).put(m.offset(),
                    records.get(i));
        }
        return out;
    }

    private static void await(String out, String dlq, Map<String, byte[]> snapshots,
            List<ConsumerRecord<byte[], byte[]>> deadLetters, int expectedSnapshots, int expectedDeadLetters,
            Duration timeout, BatonRunProcess baton) throws IOException {
        java.util.Properties props = kafka.consumerProps("flood-reader-" + out);
        props.put("max.partition.fetch.bytes", Integer.toString(16 * MIB));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(out, dlq));
            Runnable poll = () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.topic().equals(out)) {
                        String id = new String(r.key(), StandardCharsets.UTF_8) + "/" + handoffId(r.value());
                        assertThat(snapshots.put(id, r.value())).as("exactly once: %s", id).isNull();
                    } else {
                        deadLetters.add(r);
                    }
                }
            };
            Awaitility.await("snapshots and dead letters on " + out).atMost(timeout).pollInSameThread()
                    .pollInterval(Duration.ZERO).failFast("baton run stopped", baton::assertAlive)
                    .until(() -> {
                        poll.run();
                        return snapshots.size() >= expectedSnapshots && deadLetters.size() >= expectedDeadLetters;
                    });
            // a little longer: anything extra shows up here
            for (long quiet = System.nanoTime() + Duration.ofSeconds(3).toNanos(); System.nanoTime() < quiet; ) poll.run();
        }
        assertThat(snapshots.size()).as("snapshots; log:\n%s", baton.logTail()).isEqualTo(expectedSnapshots);
        assertThat(deadLetters.size()).as("dead letters; log:\n%s", baton.logTail()).isEqualTo(expectedDeadLetters);
    }

    private static String handoffId(byte[] snapshot) {
        // the snapshot's last key segment is the hand-off id: read it from the value in either format
        String text = new String(snapshot, StandardCharsets.ISO_8859_1);
        Matcher m = Pattern.compile("\"handoff_id\":\"([^\"]+)\"").matcher(text);
        if (m.find()) return m.group(1);
        try {
            return ContextSnapshotReader.avro(new HttpSchemaRegistryClient(registry.url())).read(snapshot)
                    .getHandoffId();
        } catch (RuntimeException e) {
            return "unreadable-" + Arrays.hashCode(snapshot);
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    // ---- baton run -------------------------------------------------------------------------------------------------

    private BatonRunProcess start(String format, String in, String out, String dlq, String policies)
            throws IOException {
        List<String> flags = new ArrayList<>(List.of("--format", format));
        if (format.equals("avro")) {
            flags.addAll(List.of("--schema-registry-url", registry.url()));
        }
        Map<String, String> env = BatonRunProcess.topics("baton-flood-" + format, in, out, dlq, policies);
        env.put("BATON_REPLICATION_FACTOR", "1");
        env.put("BATON_NUM_STANDBY_REPLICAS", "0");
        return BatonRunProcess.start(dir, "run-" + format, "768m", kafka.bootstrapServers(), flags, env);
    }

    /** Baton's counters from /metrics once they add up to {@code in} (fails after 60 s). */
    private Map<String, Double> awaitCounters(BatonRunProcess baton, long in) throws Exception {
        Map<String, Double> counters = Awaitility.await("counters that add up to " + in).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).failFast("baton run stopped", baton::assertAlive)
                .until(() -> counters(baton.metrics()), c -> sum(c) == in);
        System.out.printf("Baton's counters: %s%n", counters);
        return counters;
    }

    /** Baton's counters in a /metrics text, dead letters by code and in all. */
    private static Map<String, Double> counters(String text) {
        Map<String, Double> counters = new TreeMap<>();
        counters.put("applied", value(text, "baton_applied_turns_total"));
        counters.put("duplicate-turns", value(text, "baton_duplicate_turns_total"));
        counters.put("duplicate-handoffs", value(text, "baton_duplicate_handoffs_total"));
        counters.put("snapshots", value(text, "baton_snapshots_emitted_total"));
        double dead = 0;
        Matcher m = Pattern.compile("(?m)^baton_dead_letters_total\\{code=\"([A-Z_]+)\",?\\} (\\S+)$").matcher(text);
        while (m.find()) {
            counters.put("dead-letters." + m.group(1), Double.parseDouble(m.group(2)));
            dead += Double.parseDouble(m.group(2));
        }
        counters.put("dead-letters", dead);
        return counters;
    }

    /** in = applied + duplicates + snapshots + dead letters, once every record has been counted. */
    private static double sum(Map<String, Double> counters) {
        return counters.get("applied") + counters.get("duplicate-turns") + counters.get("duplicate-handoffs")
                + counters.get("snapshots") + counters.get("dead-letters");
    }

    private static double value(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? (\\S+)$").matcher(metrics);
        assertThat(m.find()).as("%s in /metrics", name).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
