package dev.baton.egress;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.baton.avro.ContextSnapshot;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.snapshot.Framing;
import dev.baton.engine.snapshot.FramingKind;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Parity;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.Retention;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Stats;
import dev.baton.engine.snapshot.EncodingTokenCount;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.serde.MockSchemaRegistry;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The content hash recomputed the way a consumer in another language would, from docs/audit.md alone: this test's
 * canonicalizer shares no code with {@link SnapshotHash}. It reads the JSONL line with a streaming JSON parser (taking
 * each {@code arguments} object's raw text from the line), and the Avro value with Avro's generic reader.
 */
class SnapshotHashIndependentTest {
    private static final String TOPIC = "baton.context-snapshots";
    private final String scope = "hash-test-" + System.nanoTime();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    /** Text that exercises every escaping rule: quotes, backslashes, control characters, U+2028, non-BMP, DEL. */
    private static final String TRICKY = "say \"hi\" \\ back\u0001slash\ttab\r\nline\u001f\u007f\u2028 é 😀 </tag>";

    static Snapshot snapshot() {
        return new Snapshot("t1/s1/h1", "t1", "s1", "h1", null, "qwen", Target.LOCAL, 7, 8,
                Instant.parse("2026-01-31T12:00:02.500Z").toEpochMilli(),
                new Framing(FramingKind.CONTINUITY, "You are qwen."),
                "Session t1/s1\n" + TRICKY,
                List.of(Message.user(TRICKY),
                        new Message("assistant", null, "",
                                List.of(new ToolCall("c1", "grep", "{\"z\":1.0,\"a\":1e5,\"s\":\"\\u00e9\\n\"}")), null),
                        new Message("tool", null, "hit", List.of(), "c1"),
                        Message.assistant("claude", "done")),
                new Retention(List.of(6L, 4L), List.of(2L), List.of(), 0, 120),
                List.of(new Truncation(TruncationKind.TURNS_MISSING, 1L, 1L, 1, "(turn missing — 1 turn, seq 1)"),
                        new Truncation(TruncationKind.SEGMENT_TRIMMED, null, null, 300, "… (300 characters cut)")),
                new Stats(40, 23, 16, List.of(new EncodingTokenCount("o200k_base", 12, 9))), new Parity("claude", 5, 5),
                new InputRange("baton.session-events", 3, 100L, 250L, null, null));
    }

    @Test
    void shouldLetAConsumerRecomputeTheHashFromTheJsonLine() throws Exception {
        String line = SnapshotEncoder.toJsonLine(snapshot());
        Object tree = readJson(line);
        @SuppressWarnings("unchecked") Map<String, Object> top = (Map<String, Object>) tree;
        String stored = (String) top.remove("content_sha256");
        top.put("occurred_at", Instant.parse((String) top.get("occurred_at")).toEpochMilli());

        assertThat(stored).matches("[0-9a-f]{64}");
        assertThat(sha256Hex(canonical(tree))).isEqualTo(stored);
    }

    @Test
    void shouldLetAConsumerRecomputeTheHashFromTheAvroRecord() throws Exception {
        byte[] value = SnapshotEncoder.avro(registry).encode(TOPIC, snapshot());
        Schema schema = ContextSnapshot.getClassSchema();
        GenericRecord record = new GenericDatumReader<GenericRecord>(schema).read(null,
                DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null)); // after magic byte + id
        @SuppressWarnings("unchecked") Map<String, Object> top = (Map<String, Object>) fromAvro(record);
        String stored = (String) top.remove("content_sha256");

        assertThat(sha256Hex(canonical(top))).isEqualTo(stored);
        assertThat(stored).isEqualTo(SnapshotEncoder.toAvro(snapshot()).getContentSha256()); // same in both formats
    }

    @Test
    void shouldChangeTheHashWhenAnyFieldChanges() {
        String base = SnapshotEncoder.toAvro(snapshot()).getContentSha256();
        Snapshot s = snapshot();
        Snapshot otherBrick = new Snapshot(s.snapshotId(), s.tenantId(), s.sessionId(), s.handoffId(), s.fromAgent(),
                s.toAgent(), s.target(), s.asOfSeq(), s.turnCount(), s.occurredAtMillis(), s.framing(),
                s.brick() + ".", s.messages(), s.retention(), s.truncations(), s.stats(), s.parity(), s.provenance());
        assertThat(SnapshotEncoder.toAvro(otherBrick).getContentSha256()).isNotEqualTo(base);
        Snapshot otherRange = s.withProvenance(new InputRange("baton.session-events", 3, 100L, 251L, null, null));
        assertThat(SnapshotEncoder.toAvro(otherRange).getContentSha256()).isNotEqualTo(base);
    }

    // ---- an independent implementation of docs/audit.md ---------------------------------------------------------

    /** A JSON text as maps (sorted by key, nulls dropped), lists, strings, longs and booleans; arguments raw. */
    static Object readJson(String text) throws IOException {
        try (JsonParser p = new JsonFactory().createParser(text)) {
            p.nextToken();
            return readValue(p, text, null);
        }
    }

    private static Object readValue(JsonParser p, String text, String name) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT && "arguments".equals(name)) {
            int start = (int) p.currentTokenLocation().getCharOffset();
            p.skipChildren();
            int end = (int) p.currentLocation().getCharOffset();
            return text.substring(start, end);
        }
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> m = new TreeMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    p.nextToken();
                    Object v = readValue(p, text, field);
                    if (v != null) m.put(field, v);
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) l.add(readValue(p, text, null));
                return l;
            }
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                return p.getLongValue();
            case VALUE_TRUE:
                return true;
            case VALUE_FALSE:
                return false;
            case VALUE_NULL:
                return null;
            default:
                throw new IllegalStateException("unexpected " + t);
        }
    }

    /** A generic Avro value in the same shape (timestamp-millis stays the long it is on the wire). */
    static Object fromAvro(Object v) {
        if (v instanceof GenericRecord r) {
            Map<String, Object> m = new TreeMap<>();
            for (Schema.Field f : r.getSchema().getFields()) {
                Object x = fromAvro(r.get(f.name()));
                if (x != null) m.put(f.name(), x);
            }
            return m;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (Object x : l) out.add(fromAvro(x));
            return out;
        }
        if (v instanceof Utf8 || v instanceof CharSequence) return v.toString();
        if (v instanceof Integer i) return i.longValue();
        if (v instanceof org.apache.avro.generic.GenericEnumSymbol<?> e) return e.toString();
        return v; // Long, Boolean, null
    }

    static byte[] canonical(Object v) {
        StringBuilder sb = new StringBuilder();
        write(v, sb);
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    private static void write(Object v, StringBuilder sb) {
        if (v instanceof Map<?, ?> m) {
            sb.append('{');
            String sep = "";
            for (Map.Entry<String, Object> e : ((Map<String, Object>) m).entrySet()) {
                sb.append(sep);
                sep = ",";
                quote(e.getKey(), sb);
                sb.append(':');
                write(e.getValue(), sb);
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) sb.append(',');
                write(l.get(i), sb);
            }
            sb.append(']');
        } else if (v instanceof String s) {
            quote(s, sb);
        } else {
            sb.append(v); // Long or Boolean
        }
    }

    /** docs/audit.md: escape " \ and U+0000–U+001F (short forms for b t n f r, else \\u00xx lowercase). */
    private static void quote(String s, StringBuilder sb) {
        sb.append('"');
        s.codePoints().forEach(cp -> {
            if (cp == '"') sb.append("\\\"");
            else if (cp == '\\') sb.append("\\\\");
            else if (cp == 8) sb.append("\\b");
            else if (cp == 9) sb.append("\\t");
            else if (cp == 10) sb.append("\\n");
            else if (cp == 12) sb.append("\\f");
            else if (cp == 13) sb.append("\\r");
            else if (cp < 0x20) sb.append(String.format("\\u%04x", cp));
            else sb.appendCodePoint(cp);
        });
        sb.append('"');
    }

    static String sha256Hex(byte[] bytes) throws Exception {
        StringBuilder hex = new StringBuilder();
        for (byte b : MessageDigest.getInstance("SHA-256").digest(bytes)) hex.append(String.format("%02x", b & 0xff));
        return hex.toString();
    }
}
