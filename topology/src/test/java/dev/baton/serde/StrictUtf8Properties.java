package dev.baton.serde;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StrictUtf8} rejects exactly what the JDK's UTF-8 decoder rejects with {@code CodingErrorAction.REPORT} (what
 * Baton decoded input strings with before) and gives the same string otherwise — over byte strings made of the bytes
 * where UTF-8's rules change (lead bytes C0/C1/C2, E0/ED/EF, F0/F4/F5, continuation bounds 7F/80/8F/90/9F/A0/BF/C0),
 * whole encoded characters (surrogate pairs, U+FFFF, U+10FFFF) and truncations, at any offset into a larger array.
 */
class StrictUtf8Properties {

    @Provide
    Arbitrary<byte[]> bytes() {
        Arbitrary<byte[]> edge = Arbitraries.of(0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2,
                0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfe, 0xff)
                .map(b -> new byte[]{(byte) (int) b});
        Arbitrary<byte[]> anyByte = Arbitraries.bytes().map(b -> new byte[]{b});
        Arbitrary<byte[]> character = Arbitraries.oneOf(
                Arbitraries.integers().between(0, 0x10ffff), // code points incl. lone surrogates (encoded as '?')
                Arbitraries.of(0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x10ffff, 0x1f600))
                .filter(cp -> cp < 0xd800 || cp > 0xdfff)
                .map(cp -> new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> truncated = character.filter(b -> b.length > 1)
                .map(b -> java.util.Arrays.copyOf(b, b.length - 1));
        Arbitrary<byte[]> piece = Arbitraries.frequencyOf(Tuple.of(4, character), Tuple.of(3, edge),
                Tuple.of(1, anyByte), Tuple.of(1, truncated));
        return piece.list().ofMaxSize(12).map(StrictUtf8Properties::concat);
    }

    private static byte[] concat(List<byte[]> parts) {
        int n = 0;
        for (byte[] p : parts) n += p.length;
        byte[] out = new byte[n];
        int i = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, i, p.length);
            i += p.length;
        }
        return out;
    }

    private static String jdk(byte[] b, int off, int len) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, off, len)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    @Property(tries = 5000)
    void shouldDecodeExactlyLikeTheJdksReportingDecoder(@ForAll("bytes") byte[] b) {
        assertThat(StrictUtf8.decode(b, 0, b.length)).isEqualTo(jdk(b, 0, b.length));
    }

    @Property(tries = 1000)
    void shouldDecodeOnlyTheGivenRange(@ForAll("bytes") byte[] b, @ForAll("bytes") byte[] before,
                                       @ForAll("bytes") byte[] after) {
        byte[] all = concat(List.of(before, b, after));
        assertThat(StrictUtf8.decode(all, before.length, b.length)).isEqualTo(jdk(b, 0, b.length));
    }

    @Property(tries = 2000)
    void shouldAgreeOnRandomBytes(@ForAll byte[] b) {
        assertThat(StrictUtf8.decode(b, 0, b.length)).isEqualTo(jdk(b, 0, b.length));
    }
}
