package dev.baton.replay.importer;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.replay.importer.ImportReport.Kind;

/**
 * ATIF trajectories (Harbor RFC 0001, versions 1.0–1.7) → Baton turns. The mapping is written down in
 * docs/import.md; in short: system / user / agent steps become SYSTEM / USER / ASSISTANT turns in {@code step_id}
 * order, an agent step's {@code tool_calls} with their {@code observation.results} become the trail of its turn,
 * and embedded {@code subagent_trajectories} (1.7) become sessions of their own.
 */
final class AtifConverter {
    private AtifConverter() {
    }

    /** Null when {@code root} has the shape of an ATIF trajectory, else why not. */
    static String validate(JsonNode root) {
        if (root == null || !root.isObject()) return "not a JSON object (an ATIF trajectory is one)";
        JsonNode steps = root.get("steps");
        if (steps == null || !steps.isArray()) {
            return root.has("messages") ? "no \"steps\" array: this looks like a chat log (try --from openai-chat)"
                    : "no \"steps\" array: not an ATIF trajectory";
        }
        int i = 0;
        for (JsonNode step : steps) {
            i++;
            if (!step.isObject()) return "steps[" + (i - 1) + "] is not an object";
            String source = RawJson.string(step, "source");
            if (source == null || sourceRole(source) == null) {
                return "steps[" + (i - 1) + "].source is " + (source == null ? "missing" : Texts.quote(source))
                        + ": expected system, user or agent";
            }
            JsonNode calls = step.get("tool_calls");
            if (calls != null && !calls.isNull() && !calls.isArray()) return "steps[" + (i - 1) + "].tool_calls is not an array";
            JsonNode obs = step.get("observation");
            if (obs != null && !obs.isNull()) {
                if (!obs.isObject()) return "steps[" + (i - 1) + "].observation is not an object";
                JsonNode results = obs.get("results");
                if (results != null && !results.isNull() && !results.isArray()) {
                    return "steps[" + (i - 1) + "].observation.results is not an array";
                }
            }
        }
        JsonNode subs = root.get("subagent_trajectories");
        if (subs != null && !subs.isNull()) {
            if (!subs.isArray()) return "subagent_trajectories is not an array";
            int k = 0;
            for (JsonNode sub : subs) {
                String why = validate(sub);
                if (why != null) return "subagent_trajectories[" + k + "]: " + why;
                k++;
            }
        }
        return null;
    }

    static Role sourceRole(String source) {
        return switch (source.toLowerCase(Locale.ROOT)) {
            case "user" -> Role.USER;
            case "system" -> Role.SYSTEM;
            case "agent" -> Role.ASSISTANT;
            default -> null;
        };
    }

    /** Converts a validated trajectory and, after it, its embedded subagent trajectories (depth first). */
    static void convert(Doc doc, ImportSettings settings, ImportReport report, Doc.Resolver resolver,
                        List<ImportedSession> out) {
        Convert c = new Convert(settings, report, doc.source);
        JsonNode root = doc.tree;
        ImportedSession session = new ImportedSession(doc.sessionId, doc.source);
        JsonNode agentBlock = root.path("agent");
        String rootModel = RawJson.string(agentBlock, "model_name");
        String agentSystem = RawJson.string(agentBlock, "name");

        List<JsonNode> steps = ordered(root.get("steps"), c);
        int index = 0;
        for (JsonNode step : steps) {
            Long stepId = RawJson.asLong(step.get("step_id"));
            String key = stepId != null ? "s" + stepId : "i" + index;
            String where = " step " + (stepId != null ? stepId : "#" + index);
            index++;
            Role role = sourceRole(RawJson.string(step, "source"));
            Instant at = c.time(step.get("timestamp"), where);
            String stepModel = RawJson.string(step, "model_name");
            String message = c.content(step.get("message"));
            switch (role) {
                case USER, SYSTEM -> {
                    String agent = role == Role.USER ? "user" : "system";
                    List<JsonNode> results = results(step);
                    if (step.path("tool_calls").isArray() && !step.get("tool_calls").isEmpty()) {
                        // ATIF allows tool calls on agent steps only, and a USER or SYSTEM turn has no trail
                        report.add(doc.source + where, Kind.MAPPED, step.get("tool_calls").size() + " tool call(s) on a "
                                + role.name().toLowerCase(Locale.ROOT) + " step ignored (only agent steps call tools)");
                    }
                    if (!message.isEmpty() || results.isEmpty()) {
                        session.turns.add(turn(agent, role, message, at, null, doc.source + where));
                    }
                    // a system (or user) step's observation: results without a tool call → TOOL turns (R1: tool unknown)
                    for (JsonNode r : results) {
                        ImportedTurn t = turn(agent, Role.TOOL, resultText(r, c, resolver, doc), at, null, doc.source + where);
                        session.turns.add(t);
                        report.add(doc.source + where, Kind.RESULT_WITHOUT_CALL,
                                "observation result of a " + role.name().toLowerCase(Locale.ROOT)
                                        + " step: a TOOL turn without a call (narrated as tool 'unknown')");
                    }
                }
                default -> {
                    String agent = settings.agentNameFrom() == ImportSettings.AgentNameFrom.AGENT
                            ? c.agent(agentSystem, "agent")
                            : c.agent(stepModel != null ? stepModel : rootModel != null ? rootModel : agentSystem, "agent");
                    String model = stepModel != null ? stepModel : rootModel;
                    String text = message;
                    String reasoning = c.content(step.get("reasoning_content"));
                    if (settings.includeReasoning() && !reasoning.isEmpty()) {
                        text = text.isEmpty() ? reasoning : reasoning + "\n\n" + text;
                    }
                    ImportedTurn trailTurn = turn(agent, Role.ASSISTANT, "", at, model, doc.source + where);
                    trail(step, key, where, c, resolver, doc, trailTurn);
                    if (trailTurn.trail.isEmpty()) {
                        trailTurn.text = text;
                        session.turns.add(trailTurn);
                    } else {
                        // what the agent said in this step comes before its actions: a text turn, then the trail
                        if (!text.isEmpty()) session.turns.add(turn(agent, Role.ASSISTANT, text, at, model, doc.source + where));
                        session.turns.add(trailTurn);
                    }
                }
            }
        }
        c.reportRepairs();
        if (steps.isEmpty()) report.add(doc.source, Kind.MAPPED, "trajectory without steps: a session without events");
        out.add(session);
        for (Doc sub : doc.embedded) convert(sub, settings, report, resolver, out);
    }

    private static ImportedTurn turn(String agent, Role role, String text, Instant at, String model, String origin) {
        ImportedTurn t = new ImportedTurn(agent, role, text);
        t.occurredAt = at;
        t.model = model;
        t.origin = origin;
        return t;
    }

    /** Steps in {@code step_id} order (stable; array order when any step lacks an integer step_id). */
    private static List<JsonNode> ordered(JsonNode steps, Convert c) {
        List<JsonNode> list = new ArrayList<>();
        steps.forEach(list::add);
        boolean allIds = list.stream().allMatch(s -> RawJson.asLong(s.get("step_id")) != null);
        if (!allIds) {
            if (!list.isEmpty()) c.report.add(c.source, Kind.MAPPED, "some steps have no integer step_id: array order used");
            return list;
        }
        List<JsonNode> sorted = new ArrayList<>(list);
        sorted.sort(Comparator.comparingLong(s -> RawJson.asLong(s.get("step_id"))));
        if (!sorted.equals(list)) c.report.add(c.source, Kind.MAPPED, "steps are not in step_id order: sorted by step_id");
        return sorted;
    }

    private static List<JsonNode> results(JsonNode step) {
        List<JsonNode> out = new ArrayList<>();
        JsonNode rs = step.path("observation").path("results");
        if (rs.isArray()) rs.forEach(out::add);
        return out;
    }

    /** The calls of an agent step with their results, then the results that answer no call (tool unknown). */
    private static void trail(JsonNode step, String key, String where, Convert c, Doc.Resolver resolver, Doc doc,
                              ImportedTurn turn) {
        JsonNode callsNode = step.get("tool_calls");
        List<JsonNode> calls = new ArrayList<>();
        if (callsNode != null && callsNode.isArray()) callsNode.forEach(calls::add);
        List<JsonNode> results = results(step);
        JsonNode[] matched = new JsonNode[calls.size()];
        List<JsonNode> unmatched = new ArrayList<>();
        for (JsonNode r : results) {
            String sid = r.isObject() ? RawJson.stringOrNumber(r, "source_call_id") : null;
            int hit = -1;
            if (sid != null) {
                for (int i = 0; i < calls.size(); i++) {
                    if (matched[i] == null && sid.equals(RawJson.stringOrNumber(calls.get(i), "tool_call_id"))) {
                        hit = i;
                        break;
                    }
                }
            }
            if (hit >= 0) matched[hit] = r;
            else unmatched.add(r);
        }
        Convert.CallIds ids = c.new CallIds();
        for (int i = 0; i < calls.size(); i++) {
            JsonNode call = calls.get(i);
            String cw = where + " tool_calls[" + i + "]";
            String id = ids.take(RawJson.stringOrNumber(call, "tool_call_id"), key + "-call-" + i, cw);
            String tool = c.tool(RawJson.string(call, "function_name"), cw);
            String args = c.arguments(call.get("arguments"), cw);
            JsonNode r = matched[i];
            if (r == null) {
                c.report.add(c.source + cw, Kind.CALL_WITHOUT_RESULT, "call " + Texts.quote(id) + " of " + tool
                        + " has no observation result: no result recorded");
                turn.trail.add(new ImportedTurn.Step(id, tool, args, null, StepStatus.OK));
            } else {
                turn.trail.add(new ImportedTurn.Step(id, tool, args, resultText(r, c, resolver, doc),
                        Convert.status(r.path("extra"))));
            }
        }
        int k = 0;
        for (JsonNode r : unmatched) {
            String sid = r.isObject() ? RawJson.stringOrNumber(r, "source_call_id") : null;
            String id = ids.take(null, key + "-result-" + k, where);
            c.report.add(c.source + where, Kind.RESULT_WITHOUT_CALL, (sid == null ? "observation result without source_call_id"
                    : "observation result for " + Texts.quote(sid) + ", which is no call of this step")
                    + ": a step of tool 'unknown' (" + id + ")");
            turn.trail.add(new ImportedTurn.Step(id, "unknown", "{}", resultText(r, c, resolver, doc),
                    Convert.status(r.path("extra"))));
            k++;
        }
    }

    /** A result's content, then one line per subagent reference naming the Baton session that holds it. */
    private static String resultText(JsonNode r, Convert c, Doc.Resolver resolver, Doc doc) {
        if (!r.isObject()) return c.content(r);
        StringBuilder sb = new StringBuilder(c.content(r.get("content")));
        JsonNode refs = r.get("subagent_trajectory_ref");
        if (refs != null && refs.isObject()) refs = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode().add(refs);
        if (refs != null && refs.isArray()) {
            for (JsonNode ref : refs) {
                Doc.Resolved res = resolver.subagent(ref, doc);
                if (sb.length() > 0) sb.append('\n');
                sb.append("subagent trajectory: session ").append(res.sessionId());
                if (!res.imported()) sb.append(" (not imported: its trajectory was not given)");
            }
        }
        return sb.toString();
    }
}
