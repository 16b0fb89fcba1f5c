package dev.baton.engine.properties;

import dev.baton.engine.model.ToolCall;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a rendering back the way a consumer would (independently of the engine's own parity code): splits contents
 * into lines (R2: after {@code \n}, {@code \r\n} or {@code \r}), parses narration, and extracts the items R9 speaks
 * of — texts, tool names, arguments and results, after undoing R2.
 */
final class Renderings {
    private Renderings() {
    }

    static final String CLEARED = "[result cleared at capture time]";
    static final String NO_RESULT = "[no result recorded]";
    /** {@code [agent called tool(args)]}: names are {@code [A-Za-z0-9_-]}, compact arguments are one line. */
    static final Pattern CALL_LINE = Pattern.compile("\\[([A-Za-z0-9_-]+) called ([A-Za-z0-9_-]+)\\((.*)\\)\\]");

    /** One item a rendering shows. Results are canonical: a native tool message's content as it is. */
    record Item(String kind, String value) {
        @Override
        public String toString() {
            return kind + ":" + SessionArbitraries.abbreviate(value);
        }
    }

    /** The lines of a text, split as R2 defines line starts. */
    static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        int start = 0;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r') {
                out.add(text.substring(start, i));
                if (c == '\r' && i + 1 < n && text.charAt(i + 1) == '\n') i++;
                start = i + 1;
            }
        }
        out.add(text.substring(start));
        return out;
    }

    static boolean startsSpecial(String line) {
        return !line.isEmpty() && (line.charAt(0) == '[' || line.charAt(0) == '(' || line.charAt(0) == '…');
    }

    /** A narrated step: the call line's parts and the outcome text (everything after the first line break). */
    record Narrated(String agent, String tool, String arguments, String outcome) {
    }

    /** Parses a system message that starts with a call line, or returns null. */
    static Narrated narration(String content) {
        int nl = content.indexOf('\n');
        if (nl < 0 || !content.startsWith("[")) return null;
        Matcher m = CALL_LINE.matcher(content.substring(0, nl));
        if (!m.matches()) return null;
        return new Narrated(m.group(1), m.group(2), Escaping.unescape(m.group(3)), content.substring(nl + 1));
    }

    /** The canonical result of a narrated outcome: the content the native tool message would carry. */
    static String canonicalOutcome(String outcome) {
        if (outcome.equals(CLEARED) || outcome.equals(NO_RESULT)) return outcome;
        if (outcome.startsWith("[result: ") && outcome.endsWith("]")) {
            return Escaping.unescape(outcome.substring("[result: ".length(), outcome.length() - 1));
        }
        if (outcome.startsWith("[error: ") && outcome.endsWith("]")) {
            return "[error: " + Escaping.unescape(outcome.substring("[error: ".length(), outcome.length() - 1)) + "]";
        }
        throw new AssertionError("malformed narration outcome: " + SessionArbitraries.abbreviate(outcome));
    }

    static List<Item> items(List<Message> messages) {
        List<Item> out = new ArrayList<>();
        for (Message m : messages) {
            switch (m.role()) {
                case "user" -> text(out, m.content());
                case "assistant" -> {
                    text(out, m.content());
                    for (ToolCall c : m.toolCalls()) {
                        out.add(new Item("tool", c.tool()));
                        out.add(new Item("arguments", c.arguments()));
                    }
                }
                case "tool" -> out.add(new Item("result", m.content()));
                case "system" -> {
                    String c = m.content();
                    Narrated n = narration(c);
                    if (n != null) {
                        out.add(new Item("tool", n.tool()));
                        out.add(new Item("arguments", n.arguments()));
                        out.add(new Item("result", canonicalOutcome(n.outcome())));
                    } else if (c.startsWith("[")) {
                        throw new AssertionError("system message starts with '[' but is no narration: "
                                + SessionArbitraries.abbreviate(c));
                    } else if (!c.startsWith("(") && !c.startsWith("…")) {
                        text(out, Escaping.unescape(c)); // a SYSTEM turn (quoted data, R2)
                    }
                }
                default -> throw new AssertionError("unknown role " + m.role());
            }
        }
        return out;
    }

    private static void text(List<Item> out, String content) {
        if (!content.isEmpty()) out.add(new Item("text", content));
    }

    /** Items of {@code reference} not covered by {@code candidate} (as multisets). */
    static List<Item> missing(List<Item> reference, List<Item> candidate) {
        Map<Item, Integer> have = new HashMap<>();
        for (Item i : candidate) have.merge(i, 1, Integer::sum);
        List<Item> missing = new ArrayList<>();
        for (Item i : reference) {
            Integer n = have.get(i);
            if (n != null && n > 0) have.put(i, n - 1);
            else missing.add(i);
        }
        return missing;
    }

    /** A readable dump of a snapshot, for failure messages. */
    static String dump(Snapshot s) {
        StringBuilder sb = new StringBuilder("to=" + s.toAgent() + " stats=" + s.stats() + " parity=" + s.parity()
                + "\ntruncations=" + s.truncations() + "\n--- messages");
        for (Message m : s.messages()) {
            sb.append("\n").append(m.role()).append(m.name() == null ? "" : "(" + m.name() + ")")
                    .append(m.toolCallId() == null ? "" : "[" + m.toolCallId() + "]").append(": ")
                    .append(SessionArbitraries.abbreviate(m.content()).replace("\n", "⏎").replace("\r", "␍"));
            for (ToolCall c : m.toolCalls()) sb.append(" {").append(c.callId()).append(' ').append(c.tool()).append(' ')
                    .append(SessionArbitraries.abbreviate(c.arguments())).append('}');
        }
        sb.append("\n--- brick\n").append(s.brick().length() > 2_000 ? s.brick().substring(0, 2_000) + "…[" + s.brick().length() + "]" : s.brick());
        return sb.toString();
    }

    /** Where two snapshots differ, briefly: the first differing field, message or brick line. */
    static String difference(Snapshot expected, Snapshot actual) {
        StringBuilder sb = new StringBuilder();
        if (!expected.messages().equals(actual.messages())) {
            int n = Math.min(expected.messages().size(), actual.messages().size());
            int i = 0;
            while (i < n && expected.messages().get(i).equals(actual.messages().get(i))) i++;
            sb.append("messages differ at ").append(i).append(" (sizes ").append(expected.messages().size()).append('/')
                    .append(actual.messages().size()).append(")\n  expected: ")
                    .append(i < expected.messages().size() ? SessionArbitraries.abbreviate(expected.messages().get(i).toString()) : "-")
                    .append("\n  actual:   ")
                    .append(i < actual.messages().size() ? SessionArbitraries.abbreviate(actual.messages().get(i).toString()) : "-")
                    .append('\n');
        }
        if (!expected.brick().equals(actual.brick())) {
            List<String> e = lines(expected.brick());
            List<String> a = lines(actual.brick());
            int i = 0;
            while (i < Math.min(e.size(), a.size()) && e.get(i).equals(a.get(i))) i++;
            sb.append("brick differs at line ").append(i).append("\n  expected: ")
                    .append(i < e.size() ? SessionArbitraries.abbreviate(e.get(i)) : "-").append("\n  actual:   ")
                    .append(i < a.size() ? SessionArbitraries.abbreviate(a.get(i)) : "-").append('\n');
        }
        if (!expected.truncations().equals(actual.truncations())) {
            sb.append("truncations\n  expected: ").append(expected.truncations()).append("\n  actual:   ")
                    .append(actual.truncations()).append('\n');
        }
        if (!expected.retention().equals(actual.retention())) {
            sb.append("retention\n  expected: ").append(expected.retention()).append("\n  actual:   ")
                    .append(actual.retention()).append('\n');
        }
        for (String f : new String[]{"framing", "stats", "parity"}) {
            Object x = f.equals("framing") ? expected.framing() : f.equals("stats") ? expected.stats() : expected.parity();
            Object y = f.equals("framing") ? actual.framing() : f.equals("stats") ? actual.stats() : actual.parity();
            if (!x.equals(y)) sb.append(f).append("\n  expected: ").append(x).append("\n  actual:   ").append(y).append('\n');
        }
        return sb.toString();
    }
}
