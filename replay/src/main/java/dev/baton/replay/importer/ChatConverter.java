package dev.baton.replay.importer;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.replay.importer.ImportReport.Kind;

/**
 * OpenAI-style chat logs ({@code {"messages": [...]}}) → Baton turns (docs/import.md): system / developer / user /
 * assistant messages become SYSTEM / USER / ASSISTANT turns; an assistant message's {@code tool_calls} answered by
 * the {@code tool} messages right after it become the trail of its turn; calls answered elsewhere stay legacy
 * calls with TOOL turns where their answers are.
 */
final class ChatConverter {
    private ChatConverter() {
    }

    static String validate(JsonNode root) {
        if (root == null || !root.isObject()) return "not a JSON object (a chat log is {\"messages\": [...]})";
        JsonNode messages = root.get("messages");
        if (messages == null || !messages.isArray()) {
            return root.has("steps") ? "no \"messages\" array: this looks like an ATIF trajectory (try --from atif)"
                    : "no \"messages\" array: not a chat log";
        }
        int i = 0;
        for (JsonNode m : messages) {
            if (!m.isObject()) return "messages[" + i + "] is not an object";
            String role = RawJson.string(m, "role");
            if (role == null || role(role) == null) {
                return "messages[" + i + "].role is " + (role == null ? "missing" : Texts.quote(role))
                        + ": expected system, developer, user, assistant, tool or function";
            }
            JsonNode calls = m.get("tool_calls");
            if (calls != null && !calls.isNull() && !calls.isArray()) return "messages[" + i + "].tool_calls is not an array";
            i++;
        }
        return null;
    }

    static Role role(String role) {
        return switch (role.toLowerCase(Locale.ROOT)) {
            case "system", "developer" -> Role.SYSTEM;
            case "user" -> Role.USER;
            case "assistant" -> Role.ASSISTANT;
            case "tool", "function" -> Role.TOOL;
            default -> null;
        };
    }

    /** One recorded call of an assistant message. */
    private record Call(int message, String rawId, String id, String tool, String arguments) {
    }

    static void convert(Doc doc, ImportSettings settings, ImportReport report, List<ImportedSession> out) {
        Convert c = new Convert(settings, report, doc.source);
        JsonNode root = doc.tree;
        List<JsonNode> ms = new ArrayList<>();
        root.get("messages").forEach(ms::add);
        Instant rootTime = c.time(root.get("created"), "");
        String rootModel = RawJson.string(root, "model");
        ImportedSession session = new ImportedSession(doc.sessionId, doc.source);

        // 1. every call, by message; the answer (tool message index) of every call
        List<List<Call>> callsOf = new ArrayList<>();
        Map<String, Call> byRawId = new HashMap<>();
        Map<Integer, Call> answers = new HashMap<>(); // tool message index → the call it answers
        Map<Call, Integer> answeredAt = new HashMap<>(); // a call (unique by message and id) → its answer
        Map<String, Call> openFunctionCalls = new HashMap<>(); // legacy function_call by name
        for (int i = 0; i < ms.size(); i++) {
            JsonNode m = ms.get(i);
            List<Call> calls = new ArrayList<>();
            callsOf.add(calls);
            String role = RawJson.string(m, "role").toLowerCase(Locale.ROOT);
            String where = " messages[" + i + "]";
            if (role.equals("assistant")) {
                Convert.CallIds ids = c.new CallIds();
                JsonNode tc = m.get("tool_calls");
                int k = 0;
                if (tc != null && tc.isArray()) {
                    for (JsonNode call : tc) {
                        String cw = where + ".tool_calls[" + k + "]";
                        JsonNode fn = call.path("function");
                        String raw = RawJson.stringOrNumber(call, "id");
                        Call x = new Call(i, raw, ids.take(raw, "m" + i + "-call-" + k, cw),
                                c.tool(RawJson.string(fn, "name"), cw), c.arguments(fn.get("arguments"), cw));
                        calls.add(x);
                        if (raw != null) byRawId.putIfAbsent(raw, x);
                        k++;
                    }
                }
                JsonNode fc = m.get("function_call");
                if (fc != null && fc.isObject()) {
                    String cw = where + ".function_call";
                    Call x = new Call(i, null, ids.take(null, "m" + i + "-function-call", cw),
                            c.tool(RawJson.string(fc, "name"), cw), c.arguments(fc.get("arguments"), cw));
                    calls.add(x);
                    openFunctionCalls.put(x.tool(), x);
                }
            } else if (role.equals("tool") || role.equals("function")) {
                Call answered = null;
                String raw = RawJson.stringOrNumber(m, "tool_call_id");
                if (raw != null) {
                    answered = byRawId.get(raw);
                } else if (role.equals("function")) {
                    String name = RawJson.string(m, "name");
                    answered = name == null ? null : openFunctionCalls.remove(Names.name(name));
                }
                if (answered != null && !answeredAt.containsKey(answered)) {
                    answers.put(i, answered);
                    answeredAt.put(answered, i);
                }
            }
        }

        // 2. turns in message order
        String lastAgent = null;
        Map<Integer, String> agentOfMessage = new HashMap<>();
        boolean[] consumed = new boolean[ms.size()];
        for (int i = 0; i < ms.size(); i++) {
            if (consumed[i]) continue;
            JsonNode m = ms.get(i);
            String where = " messages[" + i + "]";
            Role role = role(RawJson.string(m, "role"));
            Instant at = c.time(m.has("timestamp") ? m.get("timestamp") : m.get("created_at"), where);
            if (at == null) at = rootTime;
            String text = c.content(m.get("content"));
            String origin = doc.source + where;
            switch (role) {
                case USER, SYSTEM -> session.turns.add(turn(role == Role.USER ? "user" : "system", role, text, at, null, origin));
                case ASSISTANT -> {
                    String model = RawJson.string(m, "model") != null ? RawJson.string(m, "model") : rootModel;
                    String name = RawJson.string(m, "name");
                    String agent = settings.agentNameFrom() == ImportSettings.AgentNameFrom.AGENT
                            ? c.agent(name, "assistant")
                            : c.agent(model != null ? model : name, "assistant");
                    lastAgent = agent;
                    agentOfMessage.put(i, agent);
                    String reasoning = c.content(m.has("reasoning_content") ? m.get("reasoning_content") : null);
                    if (settings.includeReasoning() && !reasoning.isEmpty()) {
                        text = text.isEmpty() ? reasoning : reasoning + "\n\n" + text;
                    }
                    List<Call> calls = callsOf.get(i);
                    if (calls.isEmpty()) {
                        session.turns.add(turn(agent, Role.ASSISTANT, text, at, model, origin));
                        break;
                    }
                    if (!text.isEmpty()) session.turns.add(turn(agent, Role.ASSISTANT, text, at, model, origin));
                    ImportedTurn t = turn(agent, Role.ASSISTANT, "", at, model, origin);
                    if (adjacent(i, calls, ms, answers, answeredAt)) {
                        for (Call call : calls) {
                            Integer a = answeredAt.get(call);
                            if (a == null) {
                                report.add(origin, Kind.CALL_WITHOUT_RESULT, "call " + Texts.quote(call.id()) + " of "
                                        + call.tool() + " has no tool message: no result recorded");
                                t.trail.add(new ImportedTurn.Step(call.id(), call.tool(), call.arguments(), null, StepStatus.OK));
                            } else {
                                JsonNode answer = ms.get(a);
                                t.trail.add(new ImportedTurn.Step(call.id(), call.tool(), call.arguments(),
                                        c.content(answer.get("content")), Convert.status(answer)));
                                consumed[a] = true;
                            }
                        }
                    } else {
                        report.add(origin, Kind.LEGACY_CALLS, calls.size() + " call(s) whose tool messages are not right "
                                + "after them: legacy calls, answered by TOOL turns where the tool messages are");
                        for (Call call : calls) t.calls.add(new ImportedTurn.Call(call.id(), call.tool(), call.arguments()));
                    }
                    session.turns.add(t);
                }
                case TOOL -> {
                    Call answered = answers.get(i);
                    String agent = answered != null ? agentOfMessage.get(answered.message())
                            : lastAgent != null ? lastAgent : "assistant";
                    ImportedTurn t = turn(agent, Role.TOOL, text, at, null, origin);
                    if (answered != null) {
                        t.toolCallId = answered.id();
                    } else {
                        String raw = RawJson.stringOrNumber(m, "tool_call_id");
                        if (raw != null) {
                            t.toolCallId = Names.id(raw);
                            if (!t.toolCallId.equals(raw)) {
                                report.mappedOnce(doc.source, Kind.ID_MAPPED, "call id", raw, t.toolCallId);
                            }
                        }
                        report.add(origin, Kind.RESULT_WITHOUT_CALL, "tool message answering no recorded call"
                                + (raw == null ? "" : " (" + Texts.quote(raw) + ")") + ": a TOOL turn (narrated as tool 'unknown')");
                    }
                    session.turns.add(t);
                }
                default -> throw new IllegalStateException("validated role");
            }
        }
        c.reportRepairs();
        if (ms.isEmpty()) report.add(doc.source, Kind.MAPPED, "conversation without messages: a session without events");
        out.add(session);
    }

    /**
     * True when the tool messages right after message {@code i} answer only its calls, each at most once, and no
     * tool message elsewhere answers one of them: the calls and results then form the turn's trail.
     */
    private static boolean adjacent(int i, List<Call> calls, List<JsonNode> ms, Map<Integer, Call> answers,
                                    Map<Call, Integer> answeredAt) {
        int j = i + 1;
        while (j < ms.size() && role(RawJson.string(ms.get(j), "role")) == Role.TOOL) {
            Call a = answers.get(j);
            if (a == null || a.message() != i) return false;
            j++;
        }
        for (Call call : calls) {
            Integer at = answeredAt.get(call);
            if (at != null && (at <= i || at >= j)) return false;
        }
        return true;
    }

    private static ImportedTurn turn(String agent, Role role, String text, Instant at, String model, String origin) {
        ImportedTurn t = new ImportedTurn(agent, role, text);
        t.occurredAt = at;
        t.model = model;
        t.origin = origin;
        return t;
    }
}
