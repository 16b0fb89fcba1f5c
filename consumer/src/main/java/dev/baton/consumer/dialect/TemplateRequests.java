package dev.baton.consumer.dialect;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.consumer.dialect.SnapshotUnits.Call;
import dev.baton.consumer.dialect.SnapshotUnits.Narration;
import dev.baton.consumer.dialect.SnapshotUnits.Other;
import dev.baton.consumer.dialect.SnapshotUnits.Own;
import dev.baton.consumer.dialect.SnapshotUnits.Result;
import dev.baton.consumer.dialect.SnapshotUnits.Unit;
import dev.baton.consumer.dialect.SnapshotUnits.User;

/**
 * The chat-completions bodies of the chat-template profiles that keep a tool role ({@code chatml-tools},
 * {@code single-system}, {@code llama3-json}, {@code mistral-tools}; docs/receivers.md, "chat-template:NAME"): content
 * always a string, no {@code name}, another agent's text attributed, an own text as a message of its own before the
 * message of its calls (whose content is empty).
 */
final class TemplateRequests {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    enum Kind { TEXT, CALLS, RESULT }

    /** One message of the body being built; {@code unit} is the index of the snapshot unit it comes from (-1: added). */
    record Msg(Kind kind, String role, String content, List<Call> calls, Call answers, int unit) {
        static Msg text(String role, String content, int unit) {
            return new Msg(Kind.TEXT, role, content, List.of(), null, unit);
        }
    }

    private TemplateRequests() {
    }

    static ReceiverRequest build(SnapshotUnits s, Dialect dialect, RequestOptions options) {
        boolean mistral = dialect == Dialect.MISTRAL_TOOLS;
        boolean llama3 = dialect == Dialect.LLAMA3_JSON;
        // vLLM's DeepSeek-V3, InternLM2 and Mistral templates read one system message, the first
        boolean narrationAsUser = mistral || dialect == Dialect.SINGLE_SYSTEM;
        CallIds ids = mistral ? CallIds.mistral(s.calls()) : CallIds.unchanged(s.calls());

        List<Msg> msgs = new ArrayList<>();
        for (int i = 0; i < s.units().size(); i++) {
            Unit u = s.units().get(i);
            if (u instanceof Narration n) {
                msgs.add(Msg.text(narrationAsUser ? "user" : "system", n.text(), i));
            } else if (u instanceof User n) {
                msgs.add(Msg.text("user", n.text(), i));
            } else if (u instanceof Other o) {
                msgs.add(Msg.text("assistant", DialectTexts.attributed(o.name(), o.text()), i));
            } else if (u instanceof Own o) {
                if (!o.text().isEmpty()) {
                    msgs.add(Msg.text("assistant", o.text(), i));
                }
                if (!o.calls().isEmpty()) {
                    msgs.add(new Msg(Kind.CALLS, "assistant", "", o.calls(), null, i));
                }
            } else if (u instanceof Result r) {
                msgs.add(new Msg(Kind.RESULT, "tool", r.text(), List.of(), r.call(), i));
            }
        }
        if (llama3) {
            msgs = oneCallPerMessage(msgs);
            llama3Opening(msgs);
        }
        if (mistral) {
            msgs = joinSameRole(msgs);
            mistralEnds(msgs);
            msgs = mistralFillers(msgs);
        }

        ObjectNode body = NODES.objectNode().put("model", options.model());
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", DialectTexts.systemText(s, narrationAsUser, true, false));
        for (Msg m : msgs) {
            ObjectNode out = messages.addObject().put("role", m.role()).put("content", m.content());
            if (m.kind() == Kind.CALLS) {
                ArrayNode calls = out.putArray("tool_calls");
                for (Call c : m.calls()) {
                    ObjectNode call = calls.addObject().put("id", ids.of(c)).put("type", "function");
                    call.putObject("function").put("name", c.tool()).put("arguments", c.arguments());
                }
            } else if (m.kind() == Kind.RESULT) {
                out.put("tool_call_id", ids.of(m.answers()));
            }
        }
        return new ReceiverRequest(dialect, body, ids.changed());
    }

    /**
     * {@code llama3-json} (vLLM's Llama 3.1/3.2 JSON templates raise "This model only supports single tool-calls at
     * once!"): a message of N calls followed by its N results becomes call 1, result 1, call 2, result 2, ….
     */
    private static List<Msg> oneCallPerMessage(List<Msg> msgs) {
        List<Msg> out = new ArrayList<>();
        for (int i = 0; i < msgs.size(); i++) {
            Msg m = msgs.get(i);
            if (m.kind() != Kind.CALLS) {
                out.add(m);
                continue;
            }
            List<Msg> results = new ArrayList<>();
            while (i + 1 < msgs.size() && msgs.get(i + 1).kind() == Kind.RESULT) {
                results.add(msgs.get(++i));
            }
            for (Call c : m.calls()) {
                out.add(new Msg(Kind.CALLS, "assistant", "", List.of(c), null, m.unit()));
                for (Msg r : results) {
                    if (r.answers() == c) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }

    /**
     * {@code llama3-json}: the templates take the first message after the system message as the user's (they put the
     * tool list into it), so a transcript that opens otherwise gets an opening user line, and an empty one the
     * continuation line.
     */
    private static void llama3Opening(List<Msg> msgs) {
        if (msgs.isEmpty()) {
            msgs.add(Msg.text("user", DialectTexts.CONTINUATION_LINE, -1));
        } else if (msgs.get(0).role().equals("system")) {
            msgs.add(0, Msg.text("user", DialectTexts.OPENING_NARRATION_LINE, -1));
        } else if (msgs.get(0).role().equals("assistant")) {
            msgs.add(0, Msg.text("user", DialectTexts.OPENING_LINE, -1));
        }
    }

    /** Consecutive text messages of one role joined with a blank line ({@code mistral-tools} alternates strictly). */
    private static List<Msg> joinSameRole(List<Msg> msgs) {
        List<Msg> out = new ArrayList<>();
        for (Msg m : msgs) {
            Msg last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && last.kind() == Kind.TEXT && m.kind() == Kind.TEXT && last.role().equals(m.role())) {
                out.set(out.size() - 1, Msg.text(m.role(), last.content() + "\n\n" + m.content(), last.unit()));
            } else {
                out.add(m);
            }
        }
        return out;
    }

    /** {@code mistral-tools}: starts with a user turn and ends with a user message (shared steps). */
    private static void mistralEnds(List<Msg> msgs) {
        if (!msgs.isEmpty() && msgs.get(0).role().equals("assistant")) {
            msgs.add(0, Msg.text("user", DialectTexts.OPENING_LINE, -1));
        }
        Msg last = msgs.isEmpty() ? null : msgs.get(msgs.size() - 1);
        if (last == null || last.kind() != Kind.TEXT || !last.role().equals("user")) {
            msgs.add(Msg.text("user", DialectTexts.CONTINUATION_LINE, -1));
        }
    }

    /**
     * {@code mistral-tools}: vLLM's Mistral template requires the messages other than tool results and messages with
     * tool calls to alternate user/assistant, starting with user. Two text messages of one role with only calls and
     * results between them get an empty message of the other role between them, at the turn boundary: an empty user
     * message right after an assistant text when calls of another unit follow it (the user turn that starts the next
     * assistant turn); otherwise right before the second message (an empty assistant reply after the results).
     */
    private static List<Msg> mistralFillers(List<Msg> msgs) {
        List<Msg> out = new ArrayList<>();
        int lastText = -1;
        for (Msg m : msgs) {
            if (m.kind() == Kind.TEXT && lastText >= 0 && out.get(lastText).role().equals(m.role())) {
                Msg previous = out.get(lastText);
                int at = out.size();
                if (m.role().equals("assistant")) {
                    for (int j = lastText + 1; j < out.size(); j++) {
                        if (out.get(j).kind() == Kind.CALLS && out.get(j).unit() != previous.unit()) {
                            at = j;
                            break;
                        }
                    }
                }
                out.add(at, Msg.text(m.role().equals("user") ? "assistant" : "user", "", -1));
            }
            out.add(m);
            if (m.kind() == Kind.TEXT) {
                lastText = out.size() - 1;
            }
        }
        return out;
    }
}
