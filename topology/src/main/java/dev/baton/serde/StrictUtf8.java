package dev.baton.serde;

import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 decoding without a {@code CharsetDecoder}: {@code new String(bytes, UTF_8)} (the JDK's fast path), and
 * when the result holds a U+FFFD a check that the bytes are well-formed UTF-8 (the Unicode standard's table 3-7: no
 * overlong forms, no surrogates, nothing past U+10FFFF, no truncated sequence — exactly what Java's UTF-8 decoder
 * rejects with {@code CodingErrorAction.REPORT}). Every string of every input record passes here; a
 * {@code CharsetDecoder} per string (and its buffers) cost more than the decoding itself. Written by hand because the
 * JDK has no allocation-free "is this valid UTF-8" check; {@code StrictUtf8Properties} checks it against the JDK's
 * decoder.
 */
public final class StrictUtf8 {
    private StrictUtf8() {
    }

    /** The string of {@code length} bytes from {@code offset}, or null when they are not well-formed UTF-8. */
    public static String decode(byte[] bytes, int offset, int length) {
        String s = new String(bytes, offset, length, StandardCharsets.UTF_8);
        // The JDK's String decoding replaces every ill-formed sequence with U+FFFD: a string without one came from
        // well-formed bytes (for Latin-1 strings, most input, indexOf of a non-Latin-1 character returns at once).
        // With one, it may be genuine (EF BF BD): only then are the bytes checked.
        if (s.indexOf('\uFFFD') < 0 || isWellFormed(bytes, offset, length)) return s;
        return null;
    }

    /** True when the {@code length} bytes from {@code offset} are well-formed UTF-8. */
    public static boolean isWellFormed(byte[] b, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end) {
            int c = b[i];
            if (c >= 0) { // ASCII
                i++;
                continue;
            }
            c &= 0xff;
            if (c < 0xc2) return false; // a continuation byte, or the overlong lead bytes C0 and C1
            if (c < 0xe0) { // two bytes
                if (i + 1 >= end || !continuation(b[i + 1])) return false;
                i += 2;
            } else if (c < 0xf0) { // three bytes: E0 needs A0..BF (not overlong), ED 80..9F (not a surrogate)
                if (i + 2 >= end) return false;
                int c1 = b[i + 1] & 0xff;
                if (c == 0xe0 ? (c1 < 0xa0 || c1 > 0xbf) : c == 0xed ? (c1 < 0x80 || c1 > 0x9f) : !continuation(c1)) {
                    return false;
                }
                if (!continuation(b[i + 2])) return false;
                i += 3;
            } else if (c <= 0xf4) { // four bytes: F0 needs 90..BF (not overlong), F4 80..8F (not past U+10FFFF)
                if (i + 3 >= end) return false;
                int c1 = b[i + 1] & 0xff;
                if (c == 0xf0 ? (c1 < 0x90 || c1 > 0xbf) : c == 0xf4 ? (c1 < 0x80 || c1 > 0x8f) : !continuation(c1)) {
                    return false;
                }
                if (!continuation(b[i + 2]) || !continuation(b[i + 3])) return false;
                i += 4;
            } else {
                return false; // F5..FF never occur
            }
        }
        return true;
    }

    private static boolean continuation(int b) {
        return (b & 0xc0) == 0x80;
    }
}
