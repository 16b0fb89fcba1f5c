package dev.baton.engine.parity;

import dev.baton.engine.model.ToolCall;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.snapshot.Message;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * R9 — superset check. Extracts the items a rendering shows — texts, tool names, arguments and results, after
 * undoing R2 — from its messages (native or narrated alike), and counts how many of the reference rendering's items
 * the receiver's rendering covers (as multisets).
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
