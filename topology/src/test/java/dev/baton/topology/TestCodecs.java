package dev.baton.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.engine.model.CompactJson;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Identifiers;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.processor.ErrorCode;
import dev.baton.processor.InboundEvent;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Stand-in JSON codecs for the topology tests until the real serdes (branch serde) are wired: the contract's JSON
 * form of SessionEvent in, a snake_case subset of ContextSnapshot out, TenantPolicy JSON with the Policy's fields.
 * Deliberately small; it checks only what the tests exercise.
 */
final class TestCodecs {
    static final ObjectMapper JSON = new ObjectMapper();

    private TestCodecs() {
    }

    static BatonCodecs json() {
        return new BatonCodecs(TestCodecs::decode, TestCodecs::encode, TestCodecs::policy);
    }

    static final class Reject extends RuntimeException {
        final ErrorCode code;

        Reject(ErrorCode code, String message) {
            super(message);
            this.code = code;
        }
    }

    static DecodeResult decode(String topic, byte[] key, byte[] value) {
        JsonNode root;
        try {
            root = JSON.readTree(value);
        } catch (IOException e) {
            return DecodeResult.rejected(ErrorCode.MALFORMED, "not JSON: " + e.getMessage());
        }
        try {
            if (root == null || !root.isObject()) throw new Reject(ErrorCode.MALFORMED, "not a JSON object");
            String eventId = id(root, "event_id");
            String tenant = id(root, "tenant_id");
            String session = id(root, "session_id");
            long occurred = Instant.parse(text(root, "occurred_at", true)).toEpochMilli();
            int payloads = 0;
            for (String f : List.of("turn", "handoff", "closed")) if (root.hasNonNull(f)) payloads++;
            if (payloads != 1) throw new Reject(ErrorCode.BAD_PAYLOAD, payloads + " payloads");
            Turn turn = root.hasNonNull("turn") ? turn(root.get("turn")) : null;
            Handoff handoff = root.hasNonNull("handoff") ? handoff(root.get("handoff")) : null;
            boolean closed = root.hasNonNull("closed");
            String reason = closed ? text(root.get("closed"), "reason", false) : null;
            return DecodeResult.accepted(new InboundEvent(eventId, tenant, session, occurred, turn, handoff, closed,
                    reason, key, value));
        } catch (Reject r) {
            return DecodeResult.rejected(r.code, r.getMessage());
        } catch (RuntimeException e) {
            return DecodeResult.rejected(ErrorCode.INVALID_FIELD, e.toString());
        }
    }

    private static Turn turn(JsonNode t) {
        long seq = t.path("seq").asLong(-1);
        if (!t.has("seq") || seq < 0) throw new Reject(ErrorCode.INVALID_FIELD, "seq");
        String agent = name(t, "agent");
        Role role = Role.valueOf(text(t, "role", true).toUpperCase(Locale.ROOT));
        List<ToolStep> trail = new ArrayList<>();
        for (JsonNode s : t.path("trail")) {
            trail.add(new ToolStep(id(s, "call_id"), name(s, "tool"), args(s), text(s, "result", false),
                    s.hasNonNull("status") ? StepStatus.valueOf(s.get("status").asText().toUpperCase(Locale.ROOT))
                            : StepStatus.OK));
        }
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode c : t.path("tool_calls")) calls.add(new ToolCall(id(c, "call_id"), name(c, "tool"), args(c)));
        return new Turn(seq, agent, role, text(t, "text", false), trail, calls, text(t, "tool_call_id", false),
                null, null);
    }

    private static Handoff handoff(JsonNode h) {
        return new Handoff(id(h, "handoff_id"), h.hasNonNull("from_agent") ? name(h, "from_agent") : null,
                name(h, "to_agent"),
                h.hasNonNull("target") ? Target.valueOf(h.get("target").asText().toUpperCase(Locale.ROOT))
                        : Target.LOCAL,
                text(h, "brief", false), h.hasNonNull("as_of_seq") ? h.get("as_of_seq").asLong() : null,
                h.hasNonNull("message_budget_chars") ? h.get("message_budget_chars").asInt() : null);
    }

    private static String args(JsonNode n) {
        JsonNode a = n.get("arguments");
        if (a == null || !a.isObject()) throw new Reject(ErrorCode.INVALID_FIELD, "arguments not an object");
        return CompactJson.compactObject(a.toString());
    }

    private static String id(JsonNode n, String field) {
        String v = text(n, field, true);
        if (!Identifiers.isValidId(v)) throw new Reject(ErrorCode.INVALID_ID, field);
        return v;
    }

    private static String name(JsonNode n, String field) {
        String v = text(n, field, true);
        if (!Identifiers.isValidName(v)) throw new Reject(ErrorCode.INVALID_NAME, field);
        return v;
    }

    private static String text(JsonNode n, String field, boolean required) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            if (required) throw new Reject(ErrorCode.INVALID_FIELD, "missing " + field);
            return null;
        }
        return v.asText();
    }

    static byte[] encode(String topic, Snapshot s) {
        ObjectNode o = JSON.createObjectNode();
        o.put("snapshot_id", s.snapshotId());
        o.put("tenant_id", s.tenantId());
        o.put("session_id", s.sessionId());
        o.put("handoff_id", s.handoffId());
        o.put("to_agent", s.toAgent());
        o.put("target", s.target().name());
        o.put("as_of_seq", s.asOfSeq());
        o.put("turn_count", s.turnCount());
        o.put("brick", s.brick());
        o.put("message_count", s.messages().size());
        ArrayNode tr = o.putArray("truncations");
        for (Truncation t : s.truncations()) {
            ObjectNode x = tr.addObject();
            x.put("kind", t.kind().name());
            if (t.seqFrom() != null) x.put("seq_from", t.seqFrom());
            if (t.seqTo() != null) x.put("seq_to", t.seqTo());
            x.put("count", t.count());
        }
        try {
            return JSON.writeValueAsBytes(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** TenantPolicy JSON: optional snake_case fields over the defaults (only the ones the tests use). */
    static Policy policy(byte[] bytes, Policy defaults) {
        try {
            JsonNode n = JSON.readTree(bytes);
            Policy.Builder b = defaults.toBuilder();
            if (n.hasNonNull("transcript_budget_chars")) b.transcriptBudgetChars(n.get("transcript_budget_chars").asInt());
            if (n.hasNonNull("gap_wait_millis")) b.gapWaitMillis(n.get("gap_wait_millis").asLong());
            if (n.hasNonNull("handoff_wait_millis")) b.handoffWaitMillis(n.get("handoff_wait_millis").asLong());
            if (n.hasNonNull("brick_budget_local_chars")) b.brickBudgetLocalChars(n.get("brick_budget_local_chars").asInt());
            return b.build();
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
