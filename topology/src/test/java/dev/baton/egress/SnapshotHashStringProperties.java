package dev.baton.egress;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The content hash writes a string longer than a few chars through a fast path (its UTF-8 bytes, eight tested and
 * copied at a time) that gives the string back to the char-by-char writer when its bytes hold more {@code ?} than
 * the string has (a lone surrogate, which {@code getBytes} writes as {@code ?}). Both must give the same canonical
 * bytes for every string: the char-by-char writer is the reference (and {@link SnapshotHashStreamingProperties} pins
 * it, through whole snapshots, to the implementation before streaming; {@link SnapshotHashUtf8Properties} pins the
 * fast path to a reference written from the rules).
 */
class SnapshotHashStringProperties {

    @Property(tries = 3_000)
    void shouldWriteEveryStringAsTheCharByCharReferenceDoes(@ForAll("strings") String s) {
        assertThat(SnapshotHash.canonicalString(s, false)).isEqualTo(SnapshotHash.canonicalString(s, true));
    }

    @Test
    void shouldKeepLoneSurrogatesEscapedBesideQuestionMarks() {
        for (String s : new String[] {"?\uD800", "\uD800?", "a?b\uDC00c?", "??\uD83D\uDE00?\uDE00", "\uDBFF", "é?\uDFFF",
                "x".repeat(70) + "\uD800" + "?".repeat(9), "?".repeat(30) + "\uDC00", "é".repeat(30) + "?\uD800",
                "a?".repeat(20) + "\u4e2d\uD800"}) {
            assertThat(new String(SnapshotHash.canonicalString(s, false), java.nio.charset.StandardCharsets.UTF_8))
                    .as(s).contains("\\ud").isEqualTo(new String(SnapshotHash.canonicalString(s, true),
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
                assertThat(SnapshotHash.canonicalString(s, false)).as(sp + "@" + at)
                        .isEqualTo(SnapshotHash.canonicalString(s, true));
            }
        }
    }

    @Provide
    Arbitrary<String> strings() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.strings().all().ofMaxLength(80)),
                Tuple.of(4, Arbitraries.strings()
                        .withChars("ab ?\"\\\n\r\t\b\f\u0000\u0001\u001f\u0020\u007f\u0080\u00ff\u0100é€😀\uD800\uDBFF\uDC00\uDFFF\u2028")
                        .ofMaxLength(60)),
                Tuple.of(2, Arbitraries.strings().ascii().ofMinLength(100).ofMaxLength(40_000)),
                Tuple.of(1, Arbitraries.strings().all().ofMinLength(15_000).ofMaxLength(40_000)));
    }
}
