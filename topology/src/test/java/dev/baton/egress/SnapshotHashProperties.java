package dev.baton.egress;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.baton.avro.ContextSnapshot;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.snapshot.EncodingTokenCount;
import dev.baton.engine.snapshot.Framing;
import dev.baton.engine.snapshot.FramingKind;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Parity;
import dev.baton.engine.snapshot.Retention;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Stats;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.MockSchemaRegistry;
import dev.baton.serde.Utf8Memo;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The content hash ({@link SnapshotHash}), one suite: the canonical form and hash are part of the contract and must
 * not move.
 * <ul>
 *   <li>The worked example of docs/audit.md: its canonical text, written by hand from the rules, and its hash.</li>
 *   <li>Recomputed the way a consumer in another language would, from docs/audit.md alone: this suite's
 *       own canonicalizer ({@link #canonical(Object)}) shares no code with {@link SnapshotHash}; it reads the JSONL line with a
 *       streaming JSON parser (taking each {@code arguments} object's raw text from the line), and the Avro value
 *       with Avro's generic reader.</li>
 *   <li>{@link SnapshotHash} streams the canonical form into the digest; before, it built the whole canonical text as
 *       one string and hashed its UTF-8 bytes. That former implementation is kept here, unchanged
 *       ({@link OldCanonical}), as the oracle: on generated snapshots (every kind of character, lone surrogates,
 *       control characters, long texts, null and set optional fields) both give the same canonical bytes and
 *       hash.</li>
 *   <li>Strings: a long string goes through a fast path (its UTF-8 bytes, eight tested and copied at a time, given
 *       back to the char-by-char writer when a lone surrogate became {@code ?}); every string's form is pinned to
 *       {@link #reference}, written from the rules, on strings of every kind.</li>
 *   <li>The UTF-8 memo the hash shares with the Avro encoder ({@link Utf8Memo}, passed to both) changes neither the
 *       hash nor the Avro bytes.</li>
 * </ul>
 */
class SnapshotHashProperties {

    // --- the worked example of docs/audit.md
    static final String CANONICAL = "{\"as_of_seq\":0,\"brick\":\"Session acme/s1\",\"framing\":{\"kind\":\"OWNER_FROM_START\","
            + "\"system_prompt\":\"You are qwen.\"},\"handoff_id\":\"h1\",\"messages\":[{\"content\":\"fix \\\"it\\\"\\n\","
            + "\"role\":\"user\",\"tool_calls\":[]}],\"occurred_at\":1767225600000,\"parity\":{\"covered_items\":0,"
            + "\"reference_agent\":\"qwen\",\"reference_items\":0},\"provenance\":{\"first_line\":1,\"last_line\":2},"
            + "\"retention\":{\"expanded_seqs\":[],\"inlined_seqs\":[],\"manifest_seqs\":[],\"manifest_unlisted\":0,"
            + "\"trail_bytes\":0},\"session_id\":\"s1\",\"snapshot_id\":\"acme/s1/h1\",\"stats\":{\"brick_chars\":15,"
            + "\"estimated_tokens\":10,\"message_chars\":9},\"target\":\"LOCAL\",\"tenant_id\":\"acme\","
            + "\"to_agent\":\"qwen\",\"truncations\":[],\"turn_count\":1}";
    static final String HASH = "29aec4bb5ee0ce6a9e5ed0490cb837761222fe7f2ec2efb50ef9065645b3de96";

    static Snapshot workedExample() {
        return new Snapshot("acme/s1/h1", "acme", "s1", "h1", null, "qwen", Target.LOCAL, 0, 1,
                Instant.parse("2026-01-01T00:00:00Z").toEpochMilli(),
                new Framing(FramingKind.OWNER_FROM_START, "You are qwen."), "Session acme/s1",
                List.of(Message.user("fix \"it\"\n")), new Retention(List.of(), List.of(), List.of(), 0, 0), List.of(),
                new Stats(9, 15, 10), new Parity("qwen", 0, 0), new InputRange(null, null, null, null, 1L, 2L));
    }

    @Test
    void shouldWriteTheWorkedExampleOfTheDocs() throws IOException {
        var record = SnapshotEncoder.toAvro(workedExample());
        assertThat(new String(SnapshotHash.canonical(record), StandardCharsets.UTF_8)).isEqualTo(CANONICAL);
        assertThat(record.getContentSha256()).isEqualTo(HASH);
        String doc = Files.readString(Path.of("..", "docs", "audit.md"));
        assertThat(doc.replace("\n", "")).contains(CANONICAL).contains(HASH);
    }

    @Test
    void shouldNotDependOnTheHashFieldItself() {
        var record = SnapshotEncoder.toAvro(workedExample());
        record.setContentSha256("0".repeat(64));
        assertThat(SnapshotHash.of(record)).isEqualTo(HASH);
    }

    // --- recomputed independently, as a consumer would
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

    // --- against the former implementation, on generated snapshots

    @Test
    void shouldWriteMessagesByTheirOwnWriterWhileItKnowsTheirFields() {
        // Off when the message schema's fields differ from the ones its writer knows (the generic walk then writes
        // them, correct but slower): a new field must be added to SnapshotHash.MESSAGE_FIELDS and message().
        assertThat(SnapshotHash.MESSAGE_FIELDS_AS_WRITTEN).isTrue();
    }

    @Property(tries = 200)
    void shouldHashAsTheCanonicalStringDid(@ForAll("snapshots") Snapshot snapshot) throws Exception {
        var record = SnapshotEncoder.toAvro(snapshot);
        byte[] expected = OldCanonical.canonical(record);
        assertThat(SnapshotHash.canonical(record)).isEqualTo(expected);
        assertThat(record.getContentSha256())
                .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(expected)));
    }

    @Provide
    Arbitrary<Snapshot> snapshots() {
        Arbitrary<String> text = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.strings().all().ofMaxLength(60)),
                Tuple.of(3, Arbitraries.strings().withChars("a\"\\\n\r\t\b\f\u0000\u001f\u007f\u0080é€😀\uD800\uDC00\u2028 ")
                        .ofMaxLength(40)),
                Tuple.of(1, Arbitraries.strings().all().ofMinLength(5_000).ofMaxLength(20_000)));
        Arbitrary<String> maybe = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(null)), Tuple.of(3, text));
        Arbitrary<ToolCall> call = Combinators.combine(text, text, text).as(ToolCall::new);
        Arbitrary<Message> message = Combinators.combine(Arbitraries.of("system", "user", "assistant", "tool"), maybe,
                text, call.list().ofMaxSize(3), maybe).as(Message::new);
        Arbitrary<Truncation> truncation = Combinators.combine(Arbitraries.of(TruncationKind.class),
                Arbitraries.longs().between(-1, 1L << 40), Arbitraries.longs().between(-1, 1L << 40),
                Arbitraries.longs().between(0, 1_000_000), text).as(Truncation::new);
        Arbitrary<List<Long>> seqs = Arbitraries.longs().between(0, Long.MAX_VALUE).list().ofMaxSize(5);
        Arbitrary<Retention> retention = Combinators.combine(seqs, seqs, seqs, Arbitraries.longs().between(0, 999),
                Arbitraries.longs().between(0, Long.MAX_VALUE)).as(Retention::new);
        Arbitrary<Stats> stats = Combinators.combine(Arbitraries.longs().between(0, 1L << 40),
                Arbitraries.longs().between(0, 1L << 40), Arbitraries.longs().between(0, 1L << 40),
                Combinators.combine(text, Arbitraries.longs().between(0, 1L << 30), Arbitraries.longs().between(0, 99))
                        .as(EncodingTokenCount::new).list().ofMaxSize(2).injectNull(0.5)).as(Stats::new);
        Arbitrary<InputRange> provenance = Combinators.combine(maybe, Arbitraries.integers().between(0, 64).injectNull(0.5),
                Arbitraries.longs().between(0, 1L << 50).injectNull(0.5), Arbitraries.longs().between(0, 1L << 50).injectNull(0.5),
                Arbitraries.longs().between(1, 1L << 30).injectNull(0.5), Arbitraries.longs().between(1, 1L << 30).injectNull(0.5))
                .as(InputRange::new).injectNull(0.3);
        Arbitrary<Framing> framing = Combinators.combine(Arbitraries.of(FramingKind.class), text).as(Framing::new);
        Arbitrary<Snapshot> head = Combinators.combine(text, text, text, text, maybe, text,
                Arbitraries.of(Target.class), Arbitraries.longs().between(-1, 1L << 40))
                .as((id, tenant, session, handoff, from, to, target, asOf) ->
                        new Snapshot(id, tenant, session, handoff, from, to, target, asOf, 0, 0, null, "", List.of(),
                                null, List.of(), null, null, null));
        return Combinators.combine(head, Arbitraries.longs().between(0, 1L << 40),
                        Arbitraries.longs().between(0, 4_102_444_800_000L), framing, text, message.list().ofMaxSize(6),
                        retention, truncation.list().ofMaxSize(4))
                .as((h, turns, at, f, brick, messages, r, ts) -> new Snapshot(h.snapshotId(), h.tenantId(),
                        h.sessionId(), h.handoffId(), h.fromAgent(), h.toAgent(), h.target(), h.asOfSeq(), turns, at,
                        f, brick, messages, r, ts, null, null, null))
                .flatMap(s -> Combinators.combine(stats, Combinators.combine(text, Arbitraries.longs().between(0, 1L << 30),
                                Arbitraries.longs().between(0, 1L << 30)).as(Parity::new), provenance)
                        .as((st, p, pv) -> new Snapshot(s.snapshotId(), s.tenantId(), s.sessionId(), s.handoffId(),
                                s.fromAgent(), s.toAgent(), s.target(), s.asOfSeq(), s.turnCount(), s.occurredAtMillis(),
                                s.framing(), s.brick(), s.messages(), s.retention(), s.truncations(), st, p, pv)));
    }

    /** SnapshotHash's canonical form as it was written before streaming (commit 529859e), verbatim. */
    static final class OldCanonical {
    /** The canonical form (UTF-8 bytes) of {@code snapshot} without its hash. */
        public static byte[] canonical(IndexedRecord snapshot) {
            StringBuilder out = new StringBuilder(4096);
            record(snapshot, out, true);
            return out.toString().getBytes(StandardCharsets.UTF_8);
        }
    
        private static void record(IndexedRecord r, StringBuilder out, boolean top) {
            List<Schema.Field> fields = new ArrayList<>(r.getSchema().getFields());
            fields.sort((a, b) -> a.name().compareTo(b.name()));
            out.append('{');
            boolean first = true;
            for (Schema.Field f : fields) {
                if (top && f.name().equals(SnapshotHash.FIELD)) continue;
                Object v = r.get(f.pos());
                if (v == null) continue;
                if (!first) out.append(',');
                first = false;
                string(f.name(), out);
                out.append(':');
                value(v, out);
            }
            out.append('}');
        }
    
        private static void value(Object v, StringBuilder out) {
            if (v instanceof IndexedRecord r) {
                record(r, out, false);
            } else if (v instanceof CharSequence s) {
                string(s.toString(), out);
            } else if (v instanceof Long || v instanceof Integer) {
                out.append(((Number) v).longValue());
            } else if (v instanceof Boolean b) {
                out.append(b ? "true" : "false");
            } else if (v instanceof Instant t) {
                out.append(t.toEpochMilli());
            } else if (v instanceof Enum<?> e) {
                string(e.name(), out);
            } else if (v instanceof GenericEnumSymbol<?> e) {
                string(e.toString(), out);
            } else if (v instanceof Collection<?> c) {
                out.append('[');
                boolean first = true;
                for (Object item : c) {
                    if (!first) out.append(',');
                    first = false;
                    if (item == null) out.append("null");
                    else value(item, out);
                }
                out.append(']');
            } else {
                throw new IllegalArgumentException("no canonical form for a " + v.getClass().getName()
                        + " (a snapshot holds records, strings, integers, booleans, enums, arrays and occurred_at)");
            }
        }
    
        static void string(String s, StringBuilder out) {
            out.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\b' -> out.append("\\b");
                    case '\t' -> out.append("\\t");
                    case '\n' -> out.append("\\n");
                    case '\f' -> out.append("\\f");
                    case '\r' -> out.append("\\r");
                    default -> {
                        if (c < 0x20) {
                            hex(c, out);
                        } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                                && Character.isLowSurrogate(s.charAt(i + 1))) {
                            out.append(c).append(s.charAt(++i));
                        } else if (Character.isSurrogate(c)) {
                            hex(c, out); // a lone surrogate has no UTF-8 form
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        }
    
        private static void hex(char c, StringBuilder out) {
            out.append("\\u").append(String.format("%04x", (int) c));
        }
    }

    // --- strings, against a reference written from the rules; the UTF-8 memo

    @Test
    void shouldKeepLoneSurrogatesEscapedBesideQuestionMarks() {
        for (String s : new String[] {"?\uD800", "\uD800?", "a?b\uDC00c?", "??\uD83D\uDE00?\uDE00", "\uDBFF", "é?\uDFFF",
                "x".repeat(70) + "\uD800" + "?".repeat(9), "?".repeat(30) + "\uDC00", "é".repeat(30) + "?\uD800",
                "a?".repeat(20) + "\u4e2d\uD800"}) {
            assertThat(new String(SnapshotHash.canonicalString(s), java.nio.charset.StandardCharsets.UTF_8))
                    .as(s).contains("\\ud").isEqualTo(new String(reference(s),
                            java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @Test
    void shouldEscapeSpecialBytesAtEveryPositionOfAWord() {
        // Each special at each offset within and across the eight-byte words the fast path tests at once.
        String[] specials = {"\"", "\\", "\n", "\u0000", "\u001f", "\u0020", "!", "[", "]", "\u007f", "é", "😀", "\u0080"};
        for (String sp : specials) {
            for (int at = 0; at < 40; at++) {
                String s = "a".repeat(at) + sp + "b".repeat(39 - at);
                assertThat(SnapshotHash.canonicalString(s)).as(sp + "@" + at)
                        .isEqualTo(reference(s));
            }
        }
    }

    @Property(tries = 3_000)
    void shouldWriteEveryStringAsTheReferenceDoes(@ForAll("strings") String s) {
        assertThat(SnapshotHash.canonicalString(s)).isEqualTo(reference(s));
    }

    @Property(tries = 300)
    void shouldHashTheSameWithAndWithoutTheMemo(@ForAll("snapshots") Snapshot snapshot) throws Exception {
        ContextSnapshot record = SnapshotEncoder.toAvro(snapshot); // no memo
        String withMemo;
        try (Utf8Memo memo = new Utf8Memo()) {
            withMemo = SnapshotHash.of(record, memo);
            assertThat(SnapshotHash.of(record, memo)).isEqualTo(withMemo); // the reused writer, its strings kept twice
        }
        assertThat(withMemo).isEqualTo(record.getContentSha256());
        byte[] old = OldCanonical.canonical(record);
        assertThat(withMemo).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(old)));
    }

    @Property(tries = 300)
    void shouldWriteTheSameAvroBytesWithAndWithoutTheMemo(@ForAll("snapshots") Snapshot snapshot) {
        MockSchemaRegistry registry = MockSchemaRegistry.forScope("utf8-memo-" + System.nanoTime());
        byte[] withMemo = SnapshotEncoder.avro(registry).encode("t", snapshot);
        byte[] without = new ConfluentAvroCodec<>(registry, ContextSnapshot.class)
                .serialize("t", SnapshotEncoder.toAvro(snapshot));
        assertThat(withMemo).isEqualTo(without);
    }

    /**
     * The canonical JSON string of {@code s} (quotes included) by docs/audit.md's rules, one char at a time, then
     * UTF-8: the char-by-char writer the hash had before its fast paths.
     */
    static byte[] reference(String s) {
        StringBuilder out = new StringBuilder();
        OldCanonical.string(s, out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<String> strings() {
        String specials = "ab ?\"\\\n\r\t\b\f\u0000\u0001\u001f\u0020\u007f\u0080\u00ff\u0100é€😀\uD800\uDBFF\uDC00\uDFFF"
                + "\uD83F\u2028数";
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.strings().all().ofMaxLength(80)),
                Tuple.of(4, Arbitraries.strings().withChars(specials).ofMaxLength(60)),
                Tuple.of(2, Arbitraries.strings().withChars(specials).ofMinLength(25).ofMaxLength(3_000)),
                Tuple.of(2, Arbitraries.strings().ascii().ofMinLength(100).ofMaxLength(40_000)),
                Tuple.of(1, Arbitraries.strings().all().ofMinLength(15_000).ofMaxLength(40_000)),
                // mostly ASCII text with a few specials, non-ASCII chars or a lone surrogate somewhere in it
                Tuple.of(3, Arbitraries.strings().withCharRange('a', 'z').ofMinLength(25).ofMaxLength(2_000)
                        .flatMap(t -> Arbitraries.strings().withChars(specials).ofMinLength(1).ofMaxLength(4)
                                .flatMap(ins -> Arbitraries.integers().between(0, t.length())
                                        .map(at -> t.substring(0, at) + ins + t.substring(at))))));
    }
}
