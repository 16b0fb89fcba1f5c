package dev.baton.engine.state;

import dev.baton.engine.model.Role;
import dev.baton.engine.narration.Escaping;

/**
 * R5: the deterministic one-line digest of a turn, used in the middle message when the omitted turns' lines fit the
 * digest budget. It depends on the turn alone, so it can be computed when the turn is compacted out of state.
 * Form: {@code [seq 12 coder] first 120 characters of the text… (tools: read_file, grep)}.
 */
public final class DigestLine {
    static final int EXCERPT_CHARS = 120;

    private DigestLine() {
    }

    public static String of(StoredTurn t) {
        String who = switch (t.role) {
            case USER -> "user";
            case SYSTEM -> "system";
            case ASSISTANT -> t.agent;
            case TOOL -> t.agent + " tool result";
        };
        StringBuilder sb = new StringBuilder();
        sb.append("[seq ").append(t.seq).append(' ').append(who).append("] ");
        String text = excerptSource(t.text);
        if (!text.isEmpty()) sb.append(Escaping.escape(Escaping.excerpt(text, EXCERPT_CHARS)));
        if (t.role == Role.ASSISTANT && !t.toolNames.isEmpty()) {
            if (!text.isEmpty()) sb.append(' ');
            sb.append("(tools: ").append(String.join(", ", t.toolNames)).append(')');
        } else if (text.isEmpty()) {
            sb.append("(no text)");
        }
        return sb.toString();
    }

    /**
     * {@code Escaping.oneLine(text).strip()}, or a prefix of it that gives the same excerpt: when the text is long,
     * only a bounded part after its leading whitespace is turned into one line (a turn can hold megabytes; the
     * excerpt needs {@value #EXCERPT_CHARS} characters and to know whether anything non-blank follows them).
     */
    static String excerptSource(String text) {
        int n = text.length();
        int start = 0;
        while (start < n) {
            int cp = text.codePointAt(start);
            if (!Character.isWhitespace(cp)) break;
            start += Character.charCount(cp);
        }
        // "\r\n" becomes one space, so 2 * (EXCERPT_CHARS + 1) raw characters give more than EXCERPT_CHARS
        int end = start + 2 * (EXCERPT_CHARS + 1) + 2;
        if (end >= n) return Escaping.oneLine(text).strip();
        if (text.charAt(end - 1) == '\r' && text.charAt(end) == '\n') end++; // keep a CRLF whole
        end = Escaping.safeCutUp(text, end);
        String part = Escaping.oneLine(text.substring(start, end)).stripTrailing();
        // More than EXCERPT_CHARS non-blank-ended characters: the excerpt is cut inside this part, whatever follows.
        if (part.length() > EXCERPT_CHARS) return part;
        return Escaping.oneLine(text).strip();
    }
}
