package dev.baton.engine.model;

import java.util.Optional;

/**
 * A session's identity: tenant id and session id (docs/contract.md, "Identifiers and names"). Its text form
 * {@code tenant_id/session_id} is the input topic's record key, the key of the session store and of the HTTP query; a
 * snapshot's id is {@code tenant_id/session_id/handoff_id}. Both ids are contract identifiers (never containing
 * {@code /}), so the text form can be parsed back without ambiguity. Every key built or read anywhere in Baton goes
 * through this type.
 */
public record SessionKey(String tenantId, String sessionId) {

    /** @throws IllegalArgumentException when either id is not a contract identifier */
    public SessionKey {
        if (!Identifiers.isValidId(tenantId) || !Identifiers.isValidId(sessionId)) {
            throw new IllegalArgumentException("not a session key: tenant_id " + quote(tenantId) + ", session_id "
                    + quote(sessionId) + " (each must be 1–128 characters of [A-Za-z0-9._:-])");
        }
    }

    /** The key of {@code tenantId/sessionId}, both checked. */
    public static SessionKey of(String tenantId, String sessionId) {
        return new SessionKey(tenantId, sessionId);
    }

    /** The key of {@code tenantId/sessionId}, or empty when either is not a contract identifier. */
    public static Optional<SessionKey> ifValid(String tenantId, String sessionId) {
        return Identifiers.isValidId(tenantId) && Identifiers.isValidId(sessionId)
                ? Optional.of(new SessionKey(tenantId, sessionId)) : Optional.empty();
    }

    /**
     * Reads {@code tenant_id/session_id}: exactly one {@code /} between two contract identifiers.
     *
     * @return empty when {@code text} is null or not of that form
     */
    public static Optional<SessionKey> parse(String text) {
        if (text == null) return Optional.empty();
        int slash = text.indexOf('/');
        if (slash < 0) return Optional.empty();
        return ifValid(text.substring(0, slash), text.substring(slash + 1));
    }

    /**
     * The text a producer puts in the key for these two values, whether or not they are valid identifiers (what
     * a replay of raw input sends; the topology then dead-letters an invalid record with the contract's code).
     * For valid ids it equals {@code of(tenantId, sessionId).toString()}.
     */
    public static String format(String tenantId, String sessionId) {
        return tenantId + "/" + sessionId;
    }

    /** The id of the snapshot of hand-off {@code handoffId}: {@code tenant_id/session_id/handoff_id}. */
    public String snapshotId(String handoffId) {
        return format(tenantId, sessionId) + "/" + handoffId;
    }

    /** {@code tenant_id/session_id}. */
    @Override
    public String toString() {
        return format(tenantId, sessionId);
    }

    private static String quote(String s) {
        return s == null ? "null" : "'" + (s.length() > 140 ? s.substring(0, 140) + "…" : s) + "'";
    }
}
