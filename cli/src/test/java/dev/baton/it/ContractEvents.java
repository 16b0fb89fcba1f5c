package dev.baton.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Session events in the contract's JSON form (docs/contract.md, "JSONL files") for the end-to-end tests: the envelope,
 * a turn, a LOCAL hand-off. Event ids are {@code e1}, {@code e2}, … in the order the events are built, and every event
 * carries the same {@code occurred_at}. Callers change the returned objects freely (a bad field, a bigger text).
 */
final class ContractEvents {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String occurredAt;
    private int events;

    ContractEvents(String occurredAt) {
        this.occurredAt = occurredAt;
    }

    ObjectNode envelope(String tenant, String session) {
        ObjectNode o = JSON.createObjectNode();
        o.put("event_id", "e" + (++events));
        o.put("tenant_id", tenant);
        o.put("session_id", session);
        o.put("occurred_at", occurredAt);
        return o;
    }

    ObjectNode turn(String tenant, String session, long seq, String agent, String role, String text) {
        ObjectNode o = envelope(tenant, session);
        o.putObject("turn").put("seq", seq).put("agent", agent).put("role", role).put("text", text);
        return o;
    }

    ObjectNode handoff(String tenant, String session, String id, String to) {
        ObjectNode o = envelope(tenant, session);
        o.putObject("handoff").put("handoff_id", id).put("to_agent", to).put("target", "LOCAL");
        return o;
    }
}
