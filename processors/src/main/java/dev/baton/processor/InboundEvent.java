package dev.baton.processor;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.model.Turn;

/**
 * A session event that was read and passed the contract checks, on its way to {@link SessionContextProcessor}.
 * Exactly one of {@code turn}, {@code handoff}, {@code closed} is set. The raw key and value bytes travel with it so
 * that a contract violation found later (LATE_TURN) can still be dead-lettered with the original bytes.
 *
 * @param closedReason for a Closed event: its reason (may be null even when {@code closed} is true)
 */
public record InboundEvent(String eventId, String tenantId, String sessionId, long occurredAtMillis, Turn turn,
                           Handoff handoff, boolean closed, String closedReason, byte[] rawKey, byte[] rawValue) {

    /** The event's session (its ids were checked by the decoder). */
    public SessionKey key() {
        return new SessionKey(tenantId, sessionId);
    }

    /** The session key's text form {@code tenant_id/session_id}: the record key and the session store's key. */
    public String sessionKey() {
        return key().toString();
    }
}
