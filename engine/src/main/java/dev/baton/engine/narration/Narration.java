package dev.baton.engine.narration;

/**
 * R1 — ownership and narration. Another agent's tool step is narrated as one system message:
 * {@code [{agent} called {tool}({arguments})]} + new line + {@code [result: {result}]} (or {@code [error: …]},
 * {@code [result cleared at capture time]}, {@code [no result recorded]}), with the quoted arguments and result
 * escaped (R2). The receiver's own steps replay natively: an assistant message with the tool call, then a tool
 * message carrying the result.
 */
public final class Narration {
    public static final String CLEARED = "[result cleared at capture time]";
    public static final String NO_RESULT = "[no result recorded]";
    public static final String UNKNOWN_TOOL = "unknown";
    public static final String UNKNOWN_ARGUMENTS = "{}";

    private Narration() {
    }

    /** The narrated system-message content of a step. */
    public static String narrate(StepView s) {
        // One builder, sized from the parts' lengths plus room for a few escapes (not counted: that would scan the
        // result once more): the escaped arguments and result are appended into it, not built as strings of their
        // own and concatenated (results are most of a transcript's bytes).
        StringBuilder sb = new StringBuilder(48 + String.valueOf(s.agent()).length() + String.valueOf(s.tool()).length()
                + (s.arguments() == null ? 0 : s.arguments().length()) + s.result().plainLength());
        sb.append('[').append(s.agent()).append(" called ").append(s.tool()).append('(');
        Escaping.escapeTo(s.arguments(), sb).append(")]\n");
        return switch (s.outcome()) {
            case RESULT -> s.result().escapedTo(sb.append("[result: ")).append(']').toString();
            case ERROR -> s.result().escapedTo(sb.append("[error: ")).append(']').toString();
            case CLEARED -> sb.append(CLEARED).toString();
            case NO_RESULT -> sb.append(NO_RESULT).toString();
        };
    }

    /** {@code [{agent} called {tool}({arguments})]}. */
    public static String callLine(StepView s) {
        return "[" + s.agent() + " called " + s.tool() + "(" + Escaping.escape(s.arguments()) + ")]";
    }

    /** The result line(s) of a narrated step. */
    public static String outcomeLine(StepView s) {
        return switch (s.outcome()) {
            case RESULT -> "[result: " + s.result().escaped() + "]";
            case ERROR -> "[error: " + s.result().escaped() + "]";
            case CLEARED -> CLEARED;
            case NO_RESULT -> NO_RESULT;
        };
    }

    /** The content of the native {@code tool} message of an own step (not escaped: its role says what it is). */
    public static String nativeToolContent(StepView s) {
        return switch (s.outcome()) {
            case RESULT -> s.result().plain();
            case ERROR -> "[error: " + s.result().plain() + "]";
            case CLEARED -> CLEARED;
            case NO_RESULT -> NO_RESULT;
        };
    }

    /** Budget characters of the native form: tool name + arguments of the call, plus the tool message content. */
    public static int nativeSize(StepView s) {
        return s.tool().length() + s.arguments().length() + nativeToolContentLength(s);
    }

    /** R9: a step's size for trimming is measured on the narrated form, never smaller than the native one. */
    public static int segmentSize(StepView s) {
        return Math.max(narratedLength(s), nativeSize(s));
    }

    /** {@code narrate(s).length()}, counted rather than built (trimming asks for every step's size). */
    static int narratedLength(StepView s) {
        int call = 1 + String.valueOf(s.agent()).length() + " called ".length() + String.valueOf(s.tool()).length()
                + 1 + Escaping.escapedLength(s.arguments()) + 2;
        int outcome = switch (s.outcome()) {
            case RESULT -> "[result: ".length() + s.result().escapedLength() + 1;
            case ERROR -> "[error: ".length() + s.result().escapedLength() + 1;
            case CLEARED -> CLEARED.length();
            case NO_RESULT -> NO_RESULT.length();
        };
        return call + 1 + outcome;
    }

    /** {@code nativeToolContent(s).length()} without building it. */
    static int nativeToolContentLength(StepView s) {
        return switch (s.outcome()) {
            case RESULT -> s.result().plainLength();
            case ERROR -> "[error: ".length() + s.result().plainLength() + 1;
            case CLEARED -> CLEARED.length();
            case NO_RESULT -> NO_RESULT.length();
        };
    }
}
