package dev.baton.receivers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a recorded run as SessionEvent turn lines (docs/contract.md, "Input: SessionEvent"), in recorded order.
 * Calls and their results, when the results come right after the calls, become one trail turn (with the agent's text
 * before it as a turn of its own, as {@code baton import} does); a call whose result never comes keeps a trail step
 * without result, and a result that answers no pending call becomes a {@code TOOL} turn (with its call id when it has
 * one). Agent and tool names and call ids are mapped onto Baton's patterns ({@link BatonNames}).
 */
final class SessionBuilder {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final String tenant;
    private final String sessionId;
    private final String source;
    private final List<ObjectNode> turns = new ArrayList<>();
    private String pendingAgent;
    private String pendingText = "";
    private final List<ObjectNode> pendingSteps = new ArrayList<>();
    private String lastAgent = "assistant";

    SessionBuilder(String tenant, String rawSessionId, String source) {
        this.tenant = tenant;
        this.sessionId = BatonNames.id(rawSessionId);
        this.source = source;
    }

    SessionBuilder user(String text) {
        flush();
        turns.add(turn("user", "USER", text));
        return this;
    }

    SessionBuilder system(String text) {
        flush();
        turns.add(turn("system", "SYSTEM", text));
        return this;
    }

    /** An agent's text turn (nothing when the text is empty). */
    SessionBuilder say(String agent, String text) {
        flush();
        if (text != null && !text.isEmpty()) turns.add(turn(agent, "ASSISTANT", text));
        lastAgent = BatonNames.name(agent);
        return this;
    }

    /**
     * A call of {@code agent}; {@code text} is what it said with it (only the first call's text of a block counts).
     * Calls of one block share a trail turn; a block ends when another agent calls or a result of it came back.
     */
    SessionBuilder call(String agent, String text, String callId, String tool, String arguments) {
        String name = BatonNames.name(agent);
        // a new block: another agent, or a new model response after results came back
        boolean answered = pendingSteps.stream().anyMatch(s -> !s.get("result").isNull());
        if (pendingAgent != null && (!pendingAgent.equals(name) || answered)) flush();
        if (pendingAgent == null) {
            pendingAgent = name;
            pendingText = text == null ? "" : text;
        }
        ObjectNode step = JSON.createObjectNode();
        step.put("call_id", BatonNames.id(callId));
        step.put("tool", BatonNames.name(tool));
        step.putRawValue("arguments", new RawValue(argumentsObject(arguments)));
        step.putNull("result");
        step.put("status", "OK");
        pendingSteps.add(step);
        lastAgent = name;
        return this;
    }

    /** A result: of the first pending call with that id still unanswered, else a TOOL turn of its own. */
    SessionBuilder result(String callId, String text, boolean error) {
        String id = callId == null ? null : BatonNames.id(callId);
        for (ObjectNode step : pendingSteps) {
            if (id != null && step.get("call_id").asText().equals(id) && step.get("result").isNull()) {
                step.put("result", text);
                step.put("status", error ? "ERROR" : "OK");
                return this;
            }
        }
        flush();
        ObjectNode e = turn(lastAgent, "TOOL", text);
        if (id != null) ((ObjectNode) e.get("turn")).put("tool_call_id", id);
        turns.add(e);
        return this;
    }

    /** Legacy history: bare {@code tool_calls} on an ASSISTANT turn (results follow as {@link #tool} turns). */
    SessionBuilder legacyCalls(String agent, String text, List<String[]> idToolArguments) {
        flush();
        ObjectNode e = turn(agent, "ASSISTANT", text);
        ArrayNode calls = ((ObjectNode) e.get("turn")).putArray("tool_calls");
        for (String[] c : idToolArguments) {
            ObjectNode call = calls.addObject();
            call.put("call_id", BatonNames.id(c[0]));
            call.put("tool", BatonNames.name(c[1]));
            call.putRawValue("arguments", new RawValue(argumentsObject(c[2])));
        }
        turns.add(e);
        lastAgent = BatonNames.name(agent);
        return this;
    }

    /** A legacy TOOL turn answering {@code callId} (null: a result without a call id). */
    SessionBuilder tool(String agent, String callId, String text) {
        flush();
        ObjectNode e = turn(agent, "TOOL", text);
        if (callId != null) ((ObjectNode) e.get("turn")).put("tool_call_id", BatonNames.id(callId));
        turns.add(e);
        return this;
    }

    /** A trail turn whose steps are given whole (the generator's current-producer form). */
    SessionBuilder trail(String agent, String text, List<ObjectNode> steps) {
        flush();
        ObjectNode e = turn(agent, "ASSISTANT", text);
        ((ObjectNode) e.get("turn")).putArray("trail").addAll(steps);
        turns.add(e);
        lastAgent = BatonNames.name(agent);
        return this;
    }

    boolean isEmpty() {
        return turns.isEmpty() && pendingSteps.isEmpty();
    }

    RecordedSession build() {
        flush();
        return new RecordedSession(tenant, sessionId, source, List.copyOf(turns));
    }

    private void flush() {
        if (pendingAgent == null) return;
        if (!pendingText.isEmpty()) turns.add(turn(pendingAgent, "ASSISTANT", pendingText));
        ObjectNode e = turn(pendingAgent, "ASSISTANT", "");
        ((ObjectNode) e.get("turn")).putArray("trail").addAll(pendingSteps);
        turns.add(e);
        pendingSteps.clear();
        pendingAgent = null;
        pendingText = "";
    }

    private ObjectNode turn(String agent, String role, String text) {
        int seq = turns.size();
        ObjectNode e = JSON.createObjectNode();
        e.put("event_id", BatonNames.id(sessionId + ":" + seq));
        e.put("tenant_id", tenant);
        e.put("session_id", sessionId);
        e.put("occurred_at", T0.plusSeconds(seq).toString());
        ObjectNode t = e.putObject("turn");
        t.put("seq", seq);
        t.put("agent", BatonNames.name(agent));
        t.put("role", role);
        t.put("text", text == null ? "" : text);
        return e;
    }

    /**
     * The arguments as the JSON object text the producer wrote (literals kept); a non-object value becomes
     * {@code {"value": ...}} and unparseable text {@code {"value": "text"}}, as {@code baton import} maps them.
     */
    static String argumentsObject(String arguments) {
        if (arguments == null || arguments.isBlank()) return "{}";
        try {
            JsonNode parsed = JSON.readTree(arguments);
            if (parsed != null && parsed.isObject()) return arguments.strip();
            return "{\"value\":" + arguments.strip() + "}";
        } catch (JsonProcessingException e) {
            return JSON.createObjectNode().put("value", arguments).toString();
        }
    }
}
