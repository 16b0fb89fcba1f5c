package dev.baton.egress;

import dev.baton.avro.ContextSnapshot;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.MockSchemaRegistry;
import dev.baton.serde.Utf8Memo;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The content hash encodes a long string to UTF-8 in one go ({@code getBytes}) and escapes its bytes eight at a time,
 * sharing those bytes with the Avro encoder through {@link Utf8Memo}. Pinned here to a straightforward reference
 * written from docs/audit.md's rules (escape into a Java string, then UTF-8), on strings of every kind: non-ASCII,
 * surrogate pairs, lone surrogates, control characters, {@code ?}, long and short; and, through whole snapshots, the
 * hash and the Avro value with the memo to the same without it.
 */
class SnapshotHashUtf8Properties {

    @Property(tries = 2_000)
    void shouldWriteEveryStringAsTheReferenceDoes(@ForAll("strings") String s) {
        assertThat(SnapshotHash.canonicalString(s, false)).isEqualTo(reference(s));
    }

    @Property(tries = 300)
    @SuppressWarnings("try") // the memo is a scope: open while hashing, never read here
    void shouldHashTheSameWithAndWithoutTheMemo(@ForAll("snapshots") Snapshot snapshot) throws Exception {
        ContextSnapshot record = SnapshotEncoder.toAvro(snapshot); // no memo open
        String withMemo;
        try (Utf8Memo memo = Utf8Memo.open()) {
            withMemo = SnapshotHash.of(record);
            assertThat(SnapshotHash.of(record)).isEqualTo(withMemo); // the reused writer, its strings kept twice
        }
        assertThat(withMemo).isEqualTo(record.getContentSha256());
        byte[] old = SnapshotHashStreamingProperties.OldCanonical.canonical(record);
        assertThat(withMemo).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(old)));
    }

    @Property(tries = 300)
    void shouldWriteTheSameAvroBytesWithAndWithoutTheMemo(@ForAll("snapshots") Snapshot snapshot) {
        MockSchemaRegistry registry = MockSchemaRegistry.forScope("utf8-memo-" + System.nanoTime());
        byte[] withMemo = SnapshotEncoder.avro(registry).encode("t", snapshot);
        byte[] without = new ConfluentAvroCodec<>(registry, ContextSnapshot.class)
                .serialize("t", SnapshotEncoder.toAvro(snapshot));
        assertThat(withMemo).isEqualTo(without);
        assertThat(Utf8Memo.current()).isNull(); // closed after the value
    }

    /**
     * The canonical JSON string of {@code s} (quotes included) by docs/audit.md's rules, one char at a time, then
     * UTF-8: the char-by-char writer the hash had before its fast paths ({@link SnapshotHashStreamingProperties}).
     */
    static byte[] reference(String s) {
        StringBuilder out = new StringBuilder();
        SnapshotHashStreamingProperties.OldCanonical.string(s, out);
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

    @Provide
    Arbitrary<Snapshot> snapshots() {
        return new SnapshotHashStreamingProperties().snapshots();
    }
}
