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
        String text = Escaping.oneLine(t.text).strip();
        if (!text.isEmpty()) sb.append(Escaping.escape(Escaping.excerpt(text, EXCERPT_CHARS)));
        if (t.role == Role.ASSISTANT && !t.toolNames.isEmpty()) {
            if (!text.isEmpty()) sb.append(' ');
            sb.append("(tools: ").append(String.join(", ", t.toolNames)).append(')');
        } else if (text.isEmpty()) {
            sb.append("(no text)");
        }
        return sb.toString();
    }
}
