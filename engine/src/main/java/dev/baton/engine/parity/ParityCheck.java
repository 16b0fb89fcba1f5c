package dev.baton.engine.parity;

import dev.baton.engine.layout.MessageWriter;
import dev.baton.engine.layout.Segment;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.narration.Datum;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Parity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * R9 — superset check. Extracts the items a rendering shows — texts, tool names, arguments and results, after
 * undoing R2 — from its messages (native or narrated alike), and counts how many of the reference rendering's items
 * the receiver's rendering covers (as multisets).
 *
 * <p>{@link #parity} gives the counts from the transcript's segments, without writing the reference rendering or
 * re-reading either: the two renderings differ only in the steps one of the two agents replays natively, so only
 * those are compared item by item, and only when the narrated form would not read back as the native one. It is
 * equal, by construction and by a property test, to re-parsing both renderings with {@link #items} and counting
 * with {@link #covered} (the former computation: {@code RenderShortcutsProperties} compares the two).
 */
public final class ParityCheck {
    private ParityCheck() {
    }

    /** One shown item: its kind (text, tool, arguments, result) and value. */
    public record Item(String kind, String value) {
    }

    /** How many of {@code reference}'s items {@code receiver} shows. */
    public static long covered(List<Item> reference, List<Item> receiver) {
        Map<Item, Integer> have = new HashMap<>();
        for (Item i : receiver) have.merge(i, 1, Integer::sum);
        long covered = 0;
        for (Item i : reference) {
            Integer n = have.get(i);
            if (n != null && n > 0) {
                covered++;
                have.put(i, n - 1);
            }
        }
        return covered;
    }

    /**
     * R9's parity of the rendering of {@code segments} for {@code receiver} against the primary's own rendering of
     * the same segments: {@code new Parity(primary, items(reference).size(), covered(items(reference), items(mine)))}
     * with {@code reference} and {@code mine} written by {@link MessageWriter#write} for each of them.
     */
    public static Parity parity(List<Segment> segments, String receiver, String primary) {
        long common = 0; // items both renderings show alike (counted, never built)
        List<Item> reference = new ArrayList<>();
        List<Item> mine = new ArrayList<>();
        for (Segment s : segments) {
            boolean mineNative = MessageWriter.isNative(s, receiver);
            boolean referenceNative = MessageWriter.isNative(s, primary);
            if (mineNative == referenceNative) {
                common += mineNative ? NATIVE_STEP_ITEMS : s.items(ParityCheck::itemCount);
            } else if (readsBackAsNative(s.step())) {
                common += NATIVE_STEP_ITEMS;
            } else {
                List<Item> nativeItems = nativeItems(s.step());
                List<Item> narratedItems = items(List.of(Message.system(Narration.narrate(s.step()))));
                (mineNative ? mine : reference).addAll(nativeItems);
                (mineNative ? reference : mine).addAll(narratedItems);
            }
        }
        return new Parity(primary, common + reference.size(), common + covered(reference, mine));
    }

    /** Items of a native step: the call's tool and arguments (assistant message) and the tool message's result. */
    private static final int NATIVE_STEP_ITEMS = 3;

    private static List<Item> nativeItems(StepView s) {
        return List.of(new Item("tool", s.tool()), new Item("arguments", s.arguments()),
                new Item("result", Narration.nativeToolContent(s)));
    }

    /**
     * True when {@link #items} reads the narration of {@code s} back as exactly its native items: the call line is
     * one line that splits at the agent's {@code " called "} and the tool's {@code (}, and the marker of a cut result
     * is one line that unescaping leaves alone. (Arguments and results then unescape to what the native form shows,
     * since {@link Escaping#unescape} undoes {@link Escaping#escape} line by line.)
     */
    static boolean readsBackAsNative(StepView s) {
        String agent = s.agent();
        String tool = s.tool();
        String args = s.arguments();
        if (agent == null || tool == null || args == null) return false;
        if (agent.isEmpty() || agent.indexOf('\n') >= 0 || (agent + " called ").indexOf(" called ") != agent.length()) {
            return false;
        }
        if (tool.isEmpty() || tool.indexOf('\n') >= 0 || tool.indexOf('(') >= 0 || args.indexOf('\n') >= 0) return false;
        if (s.outcome() == StepView.Outcome.RESULT || s.outcome() == StepView.Outcome.ERROR) {
            Datum r = s.result();
            String m = r.marker();
            if (m != null && (m.indexOf('\n') >= 0 || m.indexOf('\r') >= 0 || m.startsWith("\\"))) return false;
        }
        return true;
    }

    /** {@code items(List.of(m)).size()} for the one message a non-native segment becomes, without building items. */
    private static int itemCount(Segment s) {
        return switch (s.kind()) {
            case USER, ASSISTANT_TEXT -> s.text().plainLength() == 0 ? 0 : 1;
            case SYSTEM -> systemItemCount(s.systemContent());
            // A narration's first line is its call line's, and only the first line is looked at.
            case STEP -> systemItemCount(s.shown());
            case MARKER -> systemItemCount(s.marker());
        };
    }

    /** How many items {@link #system} adds for {@code content}; only the first line is looked at. */
    private static int systemItemCount(String content) {
        // The first line is looked at in place (no substring: parity asks for every segment on every hand-off).
        int nl = content.indexOf('\n');
        int end = nl < 0 ? content.length() : nl;
        int called = content.indexOf(" called ");
        if (called >= end) called = -1; // " called " has no line break: a match past the first line is not in it
        int args = called < 0 ? -1 : content.indexOf('(', called + " called ".length());
        if (content.startsWith("[") && end >= 2 && content.startsWith(")]", end - 2) && called > 1 && nl > 0
                && args > called + " called ".length() && args < end) {
            return 3;
        }
        // Unescaping empties only "" and a lone backslash.
        return content.isEmpty() || content.equals("\\") ? 0 : 1;
    }

    public static List<Item> items(List<Message> messages) {
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
                case "tool" -> result(out, m.content(), false);
                case "system" -> system(out, m.content());
                default -> text(out, m.content());
            }
        }
        return out;
    }

    private static void text(List<Item> out, String content) {
        if (!content.isEmpty()) out.add(new Item("text", content));
    }

    private static void system(List<Item> out, String content) {
        int nl = content.indexOf('\n');
        String first = nl < 0 ? content : content.substring(0, nl);
        int called = first.indexOf(" called ");
        if (first.startsWith("[") && first.endsWith(")]") && called > 1 && nl > 0) {
            String rest = first.substring(called + " called ".length());
            int paren = rest.indexOf('(');
            if (paren > 0) {
                out.add(new Item("tool", rest.substring(0, paren)));
                out.add(new Item("arguments", Escaping.unescape(rest.substring(paren + 1, rest.length() - 2))));
                result(out, content.substring(nl + 1), true);
                return;
            }
        }
        text(out, Escaping.unescape(content));
    }

    /**
     * A result item in canonical form, the same for both forms of one step: a native tool message's content as it
     * is; a narrated {@code [result: X]} as X and {@code [error: X]} as {@code [error: X]} (X unescaped, which is
     * what the native tool message of an ERROR step carries); cleared and missing results as their marker text.
     */
    private static void result(List<Item> out, String outcome, boolean narrated) {
        if (!narrated) {
            out.add(new Item("result", outcome));
            return;
        }
        if (outcome.startsWith("[result: ") && outcome.endsWith("]")) {
            out.add(new Item("result", Escaping.unescape(outcome.substring("[result: ".length(), outcome.length() - 1))));
        } else if (outcome.startsWith("[error: ") && outcome.endsWith("]")) {
            out.add(new Item("result",
                    "[error: " + Escaping.unescape(outcome.substring("[error: ".length(), outcome.length() - 1)) + "]"));
        } else {
            out.add(new Item("result", outcome));
        }
    }
}
