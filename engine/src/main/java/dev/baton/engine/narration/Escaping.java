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
        if (datum.indexOf('\r') >= 0) return escapeAnyBreaks(datum);
        // Only \n breaks lines: visit the line starts (indexOf is vectorised) and copy the runs between them.
        int n = datum.length();
        StringBuilder out = null;
        int copied = 0;
        int start = 0;
        while (true) {
            if (start < n && needsEscape(datum.charAt(start))) {
                if (out == null) out = new StringBuilder(n + 16);
                out.append(datum, copied, start).append('\\');
                copied = start;
            }
            int nl = datum.indexOf('\n', start);
            if (nl < 0) break;
            start = nl + 1;
        }
        return out == null ? datum : out.append(datum, copied, n).toString();
    }

    /**
     * Appends {@code escape(datum)} to {@code out} without building it first: the runs between escaped line starts
     * are appended in bulk (for a caller that writes a whole message in one presized builder).
     */
    public static StringBuilder escapeTo(String datum, StringBuilder out) {
        if (datum == null || datum.isEmpty()) return out;
        if (datum.indexOf('\r') >= 0) return out.append(escapeAnyBreaks(datum));
        int n = datum.length();
        int copied = 0;
        int start = 0;
        while (true) {
            if (start < n && needsEscape(datum.charAt(start))) {
                out.append(datum, copied, start).append('\\');
                copied = start;
            }
            int nl = datum.indexOf('\n', start);
            if (nl < 0) break;
            start = nl + 1;
        }
        return out.append(datum, copied, n);
    }

    /** {@code escape(datum).length()} without building the escaped text. */
    public static int escapedLength(String datum) {
        if (datum == null) return 0;
        int n = datum.length();
        if (n == 0) return 0;
        if (datum.indexOf('\r') >= 0) return escapeAnyBreaks(datum).length();
        int extra = 0;
        int start = 0;
        while (true) {
            if (start < n && needsEscape(datum.charAt(start))) extra++;
            int nl = datum.indexOf('\n', start);
            if (nl < 0) return n + extra;
            start = nl + 1;
        }
    }

    /** {@link #escape} for a datum with {@code \r} in it: char by char, with every kind of line break. */
    private static String escapeAnyBreaks(String datum) {
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
        if (text.indexOf('\r') >= 0) return unescapeAnyBreaks(text);
        int n = text.length();
        StringBuilder out = null;
        int copied = 0;
        int start = 0;
        while (true) {
            if (start < n && text.charAt(start) == '\\') {
                if (out == null) out = new StringBuilder(n);
                out.append(text, copied, start);
                copied = start + 1;
            }
            int nl = text.indexOf('\n', start);
            if (nl < 0) break;
            start = nl + 1;
        }
        return out == null ? text : out.append(text, copied, n).toString();
    }

    /** {@link #unescape} for a text with {@code \r} in it: char by char, with every kind of line break. */
    private static String unescapeAnyBreaks(String text) {
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
