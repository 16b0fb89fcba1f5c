package dev.baton.egress;

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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.IndexedRecord;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SnapshotHash} streams the canonical form into the digest; before, it built the whole canonical text as one
 * string and hashed its UTF-8 bytes. That former implementation is kept here, unchanged, as the oracle: on generated
 * snapshots (every kind of character, lone surrogates, control characters, long texts, null and set optional
 * fields) both give the same canonical bytes and the same hash. The hash is part of the contract: it must not move.
 */
class SnapshotHashStreamingProperties {

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
}
