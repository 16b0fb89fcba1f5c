package dev.baton.engine.narration;

/**
 * R2 — narration and markers cannot be forged. Baton's own marker and narration lines start with {@code [}, {@code (}
 * or {@code …}; every line of quoted data that starts with one of those or with {@code \} gets one extra leading
 * {@code \}. A reader undoes it by removing one leading {@code \} from every line that starts with {@code \}.
 * Lines start at the beginning of the text and after {@code \n}, {@code \r\n} or {@code \r}.
 */
public final class Escaping {
    private Escaping() {
    }

    /** True when a line starting with {@code c} must be escaped. */
    public static boolean needsEscape(char c) {
        return c == '[' || c == '(' || c == '…' || c == '\\';
    }

    /** Escapes every line of a quoted datum, the first one included (R2). */
    public static String escape(String datum) {
        if (datum == null || datum.isEmpty()) return datum == null ? "" : datum;
        StringBuilder out = null;
        int n = datum.length();
        boolean lineStart = true;
        for (int i = 0; i < n; i++) {
            char c = datum.charAt(i);
            if (lineStart && needsEscape(c)) {
                if (out == null) {
                    out = new StringBuilder(n + 8);
                    out.append(datum, 0, i);
                }
                out.append('\\');
            }
            if (out != null) out.append(c);
            if (c == '\n') lineStart = true;
            else if (c == '\r') lineStart = !(i + 1 < n && datum.charAt(i + 1) == '\n');
            else lineStart = false;
        }
        return out == null ? datum : out.toString();
    }

    /** Undoes {@link #escape}: removes one leading backslash from every line that starts with one. */
    public static String unescape(String text) {
        if (text == null || text.isEmpty()) return text;
        StringBuilder out = new StringBuilder(text.length());
        int n = text.length();
        boolean lineStart = true;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (lineStart && c == '\\') {
                lineStart = false;
                continue;
            }
            out.append(c);
            if (c == '\n') lineStart = true;
            else if (c == '\r') lineStart = !(i + 1 < n && text.charAt(i + 1) == '\n');
            else lineStart = false;
        }
        return out.toString();
    }

    /** Replaces line breaks by spaces: for one-line excerpts (digest lines). */
    public static String oneLine(String text) {
        return text.replace("\r\n", " ").replace('\r', ' ').replace('\n', ' ');
    }

    /** The first {@code max} characters, never splitting a surrogate pair, with {@code …} appended when cut. */
    public static String excerpt(String text, int max) {
        if (text.length() <= max) return text;
        int end = safeCut(text, max);
        return text.substring(0, end) + "…";
    }

    /** A cut position at or below {@code pos} that does not split a UTF-16 surrogate pair. */
    public static int safeCut(String text, int pos) {
        if (pos <= 0) return 0;
        if (pos >= text.length()) return text.length();
        if (Character.isHighSurrogate(text.charAt(pos - 1)) && Character.isLowSurrogate(text.charAt(pos))) return pos - 1;
        return pos;
    }

    /** A cut position at or above {@code pos} that does not split a UTF-16 surrogate pair. */
    public static int safeCutUp(String text, int pos) {
        if (pos <= 0) return 0;
        if (pos >= text.length()) return text.length();
        if (Character.isHighSurrogate(text.charAt(pos - 1)) && Character.isLowSurrogate(text.charAt(pos))) return pos + 1;
        return pos;
    }
}
