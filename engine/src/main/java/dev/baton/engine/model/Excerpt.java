package dev.baton.engine.model;

/** Quotes a piece of input for an error message: control characters escaped, at most 100 characters shown. */
public final class Excerpt {
    public static final int MAX_CHARS = 100;

    private Excerpt() {
    }

    /** {@code 'text'}, or {@code 'first 100 characters…' (N characters)}; {@code null} for null. */
    public static String quote(String s) {
        if (s == null) return "null";
        int cut = s.length() <= MAX_CHARS ? s.length() : MAX_CHARS;
        if (cut < s.length() && Character.isHighSurrogate(s.charAt(cut - 1))) cut--; // never split a pair
        StringBuilder b = new StringBuilder(cut + 24).append('\'');
        for (int i = 0; i < cut; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        b.append(cut < s.length() ? "…'" : "'");
        if (cut < s.length()) b.append(" (").append(s.length()).append(" characters)");
        return b.toString();
    }
}
