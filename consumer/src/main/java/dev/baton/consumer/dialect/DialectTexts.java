package dev.baton.consumer.dialect;

import java.util.ArrayList;
import java.util.List;

/**
 * The fixed texts and text rules of docs/receivers.md, "Shared steps": the notes of the system text, the attribution
 * line, own calls as text, the opening and continuation lines, and rule R2's escape. Word for word: the three kits
 * must produce the same bytes.
 */
public final class DialectTexts {

    public static final String MOVED_NARRATION_NOTE = "Narrated lines (lines that start with \"[\" or \"(\": other agents'"
            + " tool calls and results, system notes and markers of cut ranges, written by the hand-off service) appear"
            + " inside user turns, because this interface allows no system messages within the conversation; they are"
            + " not the user's words.";
    public static final String ATTRIBUTED_TEXT_NOTE = "Text written by another agent appears in an assistant turn after"
            + " a line \"[NAME said:]\" naming that agent; it is not your own text.";
    public static final String OWN_CALLS_AS_TEXT_NOTE = "Your own earlier tool calls appear as lines"
            + " \"[NAME called TOOL(ARGUMENTS)]\" in your turns, and their results as \"[result: …]\" lines in the"
            + " following user turn.";
    /** The user turn that comes first when a strict dialect's first content would be assistant-role. */
    public static final String OPENING_LINE = "(hand-off: the conversation opens with an assistant turn)";
    /** The user-role content that ends a request whose last turn would not be a user turn with text. */
    public static final String CONTINUATION_LINE = "(hand-off: continue from here)";
    /**
     * {@code chat-template:llama3-json} only: the user message before a transcript that opens with narration (the
     * template takes the first message after the system message as the user's; docs/receivers.md).
     */
    public static final String OPENING_NARRATION_LINE = "(hand-off: the conversation opens with narrated lines)";

    private DialectTexts() {
    }

    /** {@code "[" + name + " said:]\n" + content}: another agent's text where the dialect has no message name. */
    public static String attributed(String name, String content) {
        return "[" + name + " said:]\n" + content;
    }

    /** An own call as a line ({@code chat-template:alternating}): {@code [AGENT called TOOL(ESCAPED ARGUMENTS)]}. */
    public static String callLine(String agent, String tool, String arguments) {
        return "[" + agent + " called " + tool + "(" + escape(arguments) + ")]";
    }

    /** A result as a line ({@code chat-template:alternating}): {@code [result: ESCAPED CONTENT]}. */
    public static String resultLine(String content) {
        return "[result: " + escape(content) + "]";
    }

    /**
     * Rule R2's escape: every line of the datum that starts with {@code [}, {@code (}, {@code …} or {@code \} gets one
     * more leading {@code \}; lines start at the beginning and after {@code \n}, {@code \r\n} or {@code \r}.
     */
    public static String escape(String datum) {
        StringBuilder out = new StringBuilder(datum.length() + 8);
        boolean lineStart = true;
        for (int i = 0; i < datum.length(); i++) {
            char ch = datum.charAt(i);
            if (lineStart && (ch == '[' || ch == '(' || ch == '…' || ch == '\\')) {
                out.append('\\');
            }
            out.append(ch);
            // "\r\n" is one break: the '\n' after '\r' starts the line again, which is the same position
            lineStart = ch == '\n' || ch == '\r';
        }
        return out.toString();
    }

    /** The parts joined with blank lines, empty parts left out with their separator. */
    static String joinBlocks(List<String> parts) {
        List<String> kept = new ArrayList<>();
        for (String p : parts) {
            if (p != null && !p.isEmpty()) {
                kept.add(p);
            }
        }
        return String.join("\n\n", kept);
    }

    /** The leading system text: system prompt, the dialect's notes, then the brick. */
    static String systemText(SnapshotUnits s, boolean movedNarration, boolean attributedText, boolean ownCallsAsText) {
        List<String> parts = new ArrayList<>();
        parts.add(s.systemPrompt());
        if (movedNarration && s.has(SnapshotUnits.Narration.class)) {
            parts.add(MOVED_NARRATION_NOTE);
        }
        if (attributedText && s.has(SnapshotUnits.Other.class)) {
            parts.add(ATTRIBUTED_TEXT_NOTE);
        }
        if (ownCallsAsText && !s.calls().isEmpty()) {
            parts.add(OWN_CALLS_AS_TEXT_NOTE);
        }
        parts.add(s.brick());
        return joinBlocks(parts);
    }
}
