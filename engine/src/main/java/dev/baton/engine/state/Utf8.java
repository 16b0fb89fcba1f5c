package dev.baton.engine.state;

/** UTF-8 byte lengths without encoding (the trail ledger counts bytes on every turn). */
public final class Utf8 {
    private Utf8() {
    }

    /** The number of bytes {@code s} takes in UTF-8 (an unpaired surrogate counts 3: an upper bound, Java's encoder writes one '?'). */
    public static long length(String s) {
        if (s == null) return 0;
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) n++;
            else if (c < 0x800) n += 2;
            else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else n += 3;
        }
        return n;
    }
}
