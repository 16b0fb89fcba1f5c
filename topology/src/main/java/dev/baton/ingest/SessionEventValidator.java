package dev.baton.ingest;

import dev.baton.engine.model.Excerpt;
import dev.baton.avro.SessionEvent;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.model.CompactJson;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Identifiers;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.processor.InboundEvent;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The content checks of docs/contract.md ("Identifiers and names", "Input: SessionEvent") on a {@link SessionEvent}
 * that was read (from Avro or JSON), and its conversion into an {@link InboundEvent} of engine model objects. Shared by
 * both {@link SessionEventDecoder}s.
 *
 * <p>Order (the first failing check decides the code):
 * <ol>
 *   <li>{@code INVALID_ID}: {@code event_id}, {@code tenant_id}, {@code session_id} (before the key, so that a key is
 *       only ever compared with well-formed ids);</li>
 *   <li>{@code KEY_MISMATCH}: the key is missing, not UTF-8, or not {@code tenant_id/session_id};</li>
 *   <li>{@code BAD_PAYLOAD}: not exactly one of {@code turn}, {@code handoff}, {@code closed};</li>
 *   <li>the payload's fields in schema order, each with its own code: a turn's {@code seq} (INVALID_FIELD),
 *       {@code agent} (INVALID_NAME), {@code trail} (only on ASSISTANT turns; per step {@code call_id} INVALID_ID,
 *       {@code tool} INVALID_NAME, {@code arguments} INVALID_FIELD unless one JSON object), {@code tool_calls}
 *       (likewise), {@code tool_call_id} (only on TOOL turns, INVALID_FIELD; shape INVALID_ID); a hand-off's
 *       {@code handoff_id} (INVALID_ID), {@code from_agent} and {@code to_agent} (INVALID_NAME), {@code as_of_seq}
 *       (&gt;= 0) and {@code message_budget_chars} (&gt; 0) (INVALID_FIELD).</li>
 * </ol>
 * Every {@code arguments} is compacted with {@link CompactJson#compactObject} (white space removed, nothing else).
 * Reading errors (OVERSIZED, MALFORMED, UNKNOWN_SCHEMA, and INVALID_FIELD for missing fields, wrong types and
 * unknown enum symbols) come before all of these; see {@link SessionEventDecoder}.
 */
public final class SessionEventValidator {
    private static final String ID_SHAPE = "1–128 characters of [A-Za-z0-9._:-]";
    private static final String NAME_SHAPE = "1–64 characters of [A-Za-z0-9_-]";

    private SessionEventValidator() {
    }

    /**
     * Checks {@code event} against the contract and converts it.
     *
     * @throws RecordRejectedException with the dead-letter code of the first failing check
     */
    public static InboundEvent validate(SessionEvent event, byte[] key, byte[] value) {
        requireId("event_id", event.getEventId());
        requireId("tenant_id", event.getTenantId());
        requireId("session_id", event.getSessionId());
        checkKey(key, event.getTenantId(), event.getSessionId());

        List<String> payloads = new ArrayList<>(3);
        if (event.getTurn() != null) payloads.add("turn");
        if (event.getHandoff() != null) payloads.add("handoff");
        if (event.getClosed() != null) payloads.add("closed");
        if (payloads.size() != 1) {
            throw new RecordRejectedException(ErrorCode.BAD_PAYLOAD, payloads.isEmpty()
                    ? "no payload: exactly one of turn, handoff, closed must be set"
                    : payloads.size() + " payloads (" + String.join(", ", payloads)
                    + "): exactly one of turn, handoff, closed must be set");
        }

        long occurredAt = event.getOccurredAt().toEpochMilli();
        Turn turn = event.getTurn() == null ? null : toTurn(event.getTurn());
        Handoff handoff = event.getHandoff() == null ? null : toHandoff(event.getHandoff());
        boolean closed = event.getClosed() != null;
        String reason = closed ? event.getClosed().getReason() : null;
        return new InboundEvent(event.getEventId(), event.getTenantId(), event.getSessionId(), occurredAt, turn, handoff,
                closed, reason, key, value);
    }

    private static void checkKey(byte[] key, String tenantId, String sessionId) {
        if (key != null && isKeyOf(key, tenantId, sessionId)) return;
        String expected = SessionKey.of(tenantId, sessionId).toString(); // both ids were checked before
        if (key == null) {
            throw new RecordRejectedException(ErrorCode.KEY_MISMATCH, "key is missing; expected " + Excerpt.quote(expected));
        }
        String actual;
        try {
            actual = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(key)).toString();
        } catch (CharacterCodingException e) {
            throw new RecordRejectedException(ErrorCode.KEY_MISMATCH, "key is not UTF-8; expected " + Excerpt.quote(expected));
        }
        if (!actual.equals(expected)) {
            throw new RecordRejectedException(ErrorCode.KEY_MISMATCH, "key " + Excerpt.quote(actual)
                    + " is not tenant_id/session_id " + Excerpt.quote(expected));
        }
    }

    /**
     * True when {@code key} is the UTF-8 of {@code tenantId/sessionId}: byte by byte, since both ids were checked to
     * be ASCII (the same answer as decoding the key strictly and comparing strings, without a decoder per record).
     */
    private static boolean isKeyOf(byte[] key, String tenantId, String sessionId) {
        int t = tenantId.length();
        if (key.length != t + 1 + sessionId.length() || key[t] != '/') return false;
        for (int i = 0; i < t; i++) if (key[i] != tenantId.charAt(i)) return false;
        for (int i = 0; i < sessionId.length(); i++) if (key[t + 1 + i] != sessionId.charAt(i)) return false;
        return true;
    }

    private static Turn toTurn(dev.baton.avro.Turn t) {
        if (t.getSeq() < 0) invalidField("turn.seq is " + t.getSeq() + "; must be >= 0");
        requireName("turn.agent", t.getAgent());
        Role role = Role.valueOf(t.getRole().name());

        List<ToolStep> trail = new ArrayList<>(t.getTrail().size());
        if (!t.getTrail().isEmpty() && role != Role.ASSISTANT) {
            invalidField("turn.trail has " + t.getTrail().size() + " step(s) on " + article(role) + " turn; only ASSISTANT turns carry a trail");
        }
        for (int i = 0; i < t.getTrail().size(); i++) {
            dev.baton.avro.ToolStep s = t.getTrail().get(i);
            requireId("turn.trail[", i, "].call_id", s.getCallId());
            requireName("turn.trail[", i, "].tool", s.getTool());
            String arguments = compactArguments("turn.trail[", i, s.getArguments());
            trail.add(new ToolStep(s.getCallId(), s.getTool(), arguments, s.getResult(), StepStatus.valueOf(s.getStatus().name())));
        }

        List<ToolCall> calls = new ArrayList<>(t.getToolCalls().size());
        if (!t.getToolCalls().isEmpty() && role != Role.ASSISTANT) {
            invalidField("turn.tool_calls has " + t.getToolCalls().size() + " call(s) on " + article(role)
                    + " turn; only ASSISTANT turns carry tool calls");
        }
        for (int i = 0; i < t.getToolCalls().size(); i++) {
            dev.baton.avro.ToolCall c = t.getToolCalls().get(i);
            requireId("turn.tool_calls[", i, "].call_id", c.getCallId());
            requireName("turn.tool_calls[", i, "].tool", c.getTool());
            calls.add(new ToolCall(c.getCallId(), c.getTool(), compactArguments("turn.tool_calls[", i, c.getArguments())));
        }

        if (t.getToolCallId() != null) {
            if (role != Role.TOOL) {
                invalidField("turn.tool_call_id is set on " + article(role) + " turn; only TOOL turns answer a tool call");
            }
            requireId("turn.tool_call_id", t.getToolCallId());
        }
        return new Turn(t.getSeq(), t.getAgent(), role, t.getText(), trail, calls, t.getToolCallId(), t.getProvider(), t.getModel());
    }

    private static Handoff toHandoff(dev.baton.avro.Handoff h) {
        requireId("handoff.handoff_id", h.getHandoffId());
        if (h.getFromAgent() != null) requireName("handoff.from_agent", h.getFromAgent());
        requireName("handoff.to_agent", h.getToAgent());
        if (h.getAsOfSeq() != null && h.getAsOfSeq() < 0) {
            invalidField("handoff.as_of_seq is " + h.getAsOfSeq() + "; must be >= 0 (or absent)");
        }
        if (h.getMessageBudgetChars() != null && h.getMessageBudgetChars() <= 0) {
            invalidField("handoff.message_budget_chars is " + h.getMessageBudgetChars() + "; must be > 0 (or absent)");
        }
        return new Handoff(h.getHandoffId(), h.getFromAgent(), h.getToAgent(), Target.valueOf(h.getTarget().name()),
                h.getBrief(), h.getAsOfSeq(), h.getMessageBudgetChars());
    }

    // The paths of a step's fields ("turn.trail[2].tool") are built only when a check fails: every step of every
    // input record passes here.

    private static String compactArguments(String list, int index, String arguments) {
        try {
            return CompactJson.compactObject(arguments);
        } catch (CompactJson.NotAJsonObject e) {
            throw new RecordRejectedException(ErrorCode.INVALID_FIELD, list + index + "].arguments "
                    + Excerpt.quote(arguments) + " is not one JSON object: " + e.getMessage());
        }
    }

    private static void requireId(String list, int index, String field, String value) {
        if (!Identifiers.isValidId(value)) requireId(list + index + field, value);
    }

    private static void requireName(String list, int index, String field, String value) {
        if (!Identifiers.isValidName(value)) requireName(list + index + field, value);
    }

    private static void requireId(String path, String value) {
        if (!Identifiers.isValidId(value)) {
            throw new RecordRejectedException(ErrorCode.INVALID_ID, path + " " + Excerpt.quote(value) + " is not an id ("
                    + ID_SHAPE + ")");
        }
    }

    private static void requireName(String path, String value) {
        if (!Identifiers.isValidName(value)) {
            throw new RecordRejectedException(ErrorCode.INVALID_NAME, path + " " + Excerpt.quote(value) + " is not a name ("
                    + NAME_SHAPE + ")");
        }
    }

    private static String article(Role role) {
        return (role == Role.ASSISTANT ? "an " : "a ") + role;
    }

    private static void invalidField(String message) {
        throw new RecordRejectedException(ErrorCode.INVALID_FIELD, message);
    }
}
