package dev.baton.deadletter;

/** The stable, machine-readable dead-letter codes (docs/contract.md, "Dead-letter codes"). */
public enum ErrorCode {
    /** Bytes or JSON that cannot be read. */
    MALFORMED,
    /** Avro wire format with a schema id the registry does not know (or not a SessionEvent schema). */
    UNKNOWN_SCHEMA,
    /** The key is not the value's {@code tenant_id/session_id}. */
    KEY_MISMATCH,
    /** An identifier outside 1–128 of {@code [A-Za-z0-9._:-]}. */
    INVALID_ID,
    /** An agent or tool name outside 1–64 of {@code [A-Za-z0-9_-]}. */
    INVALID_NAME,
    /** Negative seq, unknown enum symbol, missing required field, arguments that are not a JSON object, ... */
    INVALID_FIELD,
    /** Zero or two of turn/handoff/closed. */
    BAD_PAYLOAD,
    /** Beyond the configured hard limit (default 1 MiB per record). */
    OVERSIZED,
    /** A turn whose seq was already recorded missing. */
    LATE_TURN,
    /** A hand-off receipt whose {@code content_sha256} is not the hash of the snapshot Baton wrote. */
    RECEIPT_HASH_MISMATCH,
    /** A hand-off receipt for a snapshot the session has not written (or no longer remembers). */
    UNKNOWN_SNAPSHOT,
    /**
     * Not a contract violation: an unexpected failure inside Baton while handling a record that was read fine (a bug,
     * or a state store value that cannot be decoded). The record is dead-lettered so that nothing is dropped silently
     * and processing continues; see docs/topology.md.
     */
    INTERNAL
}
