package dev.baton.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Writes session events in the contract's JSON form (docs/contract.md, "JSONL files": snake_case field names, enum
 * symbols, {@code arguments} as a JSON object, {@code occurred_at} as an ISO-8601 instant, the payload in exactly one
 * of {@code turn}, {@code handoff}, {@code closed}). These are the JSON values of {@code baton.session-events}, and
 * what {@code SessionEventEncoder.avro} turns into Avro.
 */
public final class EventJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private EventJson() {
    }

    /** A Turn event. */
    public static byte[] turn(String eventId, String tenant, String session, long occurredAtMillis, Turn t) {
        ObjectNode e = envelope(eventId, tenant, session, occurredAtMillis);
        ObjectNode turn = e.putObject("turn");
        turn.put("seq", t.seq());
        turn.put("agent", t.agent());
        turn.put("role", t.role().name());
        turn.put("text", t.text());
        if (!t.trail().isEmpty()) {
            ArrayNode trail = turn.putArray("trail");
            for (ToolStep s : t.trail()) {
                ObjectNode step = trail.addObject();
                step.put("call_id", s.callId());
                step.put("tool", s.tool());
                step.set("arguments", object(s.arguments()));
                if (s.result() != null) step.put("result", s.result());
                step.put("status", s.status().name());
            }
        }
        if (!t.toolCalls().isEmpty()) {
            ArrayNode calls = turn.putArray("tool_calls");
            for (ToolCall c : t.toolCalls()) {
                ObjectNode call = calls.addObject();
                call.put("call_id", c.callId());
                call.put("tool", c.tool());
                call.set("arguments", object(c.arguments()));
            }
        }
        if (t.toolCallId() != null) turn.put("tool_call_id", t.toolCallId());
        if (t.provider() != null) turn.put("provider", t.provider());
        if (t.model() != null) turn.put("model", t.model());
        return bytes(e);
    }

    /** A Handoff event. */
    public static byte[] handoff(String eventId, String tenant, String session, long occurredAtMillis, Handoff h) {
        ObjectNode e = envelope(eventId, tenant, session, occurredAtMillis);
        ObjectNode handoff = e.putObject("handoff");
        handoff.put("handoff_id", h.handoffId());
        if (h.fromAgent() != null) handoff.put("from_agent", h.fromAgent());
        handoff.put("to_agent", h.toAgent());
        handoff.put("target", h.target().name());
        if (h.brief() != null) handoff.put("brief", h.brief());
        if (h.asOfSeq() != null) handoff.put("as_of_seq", h.asOfSeq());
        if (h.messageBudgetChars() != null) handoff.put("message_budget_chars", h.messageBudgetChars());
        return bytes(e);
    }

    private static ObjectNode envelope(String eventId, String tenant, String session, long occurredAtMillis) {
        ObjectNode e = JSON.createObjectNode();
        e.put("event_id", eventId);
        e.put("tenant_id", tenant);
        e.put("session_id", session);
        e.put("occurred_at", Instant.ofEpochMilli(occurredAtMillis).toString());
        return e;
    }

    private static ObjectNode object(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(ObjectNode e) {
        return e.toString().getBytes(StandardCharsets.UTF_8);
    }
}
