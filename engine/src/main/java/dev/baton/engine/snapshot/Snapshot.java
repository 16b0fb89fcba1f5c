package dev.baton.engine.snapshot;

import dev.baton.engine.model.Target;

import java.util.List;

/**
 * The engine's output for one hand-off: mirrors the Avro {@code ContextSnapshot} of docs/contract.md ("Output:
 * ContextSnapshot") field for field (the content hash, computed over the encoded record, excepted; see docs/audit.md).
 */
public record Snapshot(String snapshotId, String tenantId, String sessionId, String handoffId, String fromAgent,
                       String toAgent, Target target, long asOfSeq, long turnCount, long occurredAtMillis,
                       Framing framing, String brick, List<Message> messages, Retention retention,
                       List<Truncation> truncations, Stats stats, Parity parity, InputRange provenance,
                       CallLedgerView callLedger) {
    public Snapshot {
        messages = List.copyOf(messages);
        truncations = List.copyOf(truncations);
    }

    /** A snapshot without a call ledger. */
    public Snapshot(String snapshotId, String tenantId, String sessionId, String handoffId, String fromAgent,
                    String toAgent, Target target, long asOfSeq, long turnCount, long occurredAtMillis,
                    Framing framing, String brick, List<Message> messages, Retention retention,
                    List<Truncation> truncations, Stats stats, Parity parity, InputRange provenance) {
        this(snapshotId, tenantId, sessionId, handoffId, fromAgent, toAgent, target, asOfSeq, turnCount,
                occurredAtMillis, framing, brick, messages, retention, truncations, stats, parity, provenance, null);
    }

    /** A snapshot without provenance nor call ledger. */
    public Snapshot(String snapshotId, String tenantId, String sessionId, String handoffId, String fromAgent,
                    String toAgent, Target target, long asOfSeq, long turnCount, long occurredAtMillis,
                    Framing framing, String brick, List<Message> messages, Retention retention,
                    List<Truncation> truncations, Stats stats, Parity parity) {
        this(snapshotId, tenantId, sessionId, handoffId, fromAgent, toAgent, target, asOfSeq, turnCount,
                occurredAtMillis, framing, brick, messages, retention, truncations, stats, parity, null, null);
    }

    /** This snapshot with its call ledger (null: none). */
    public Snapshot withCallLedger(CallLedgerView l) {
        return new Snapshot(snapshotId, tenantId, sessionId, handoffId, fromAgent, toAgent, target, asOfSeq,
                turnCount, occurredAtMillis, framing, brick, messages, retention, truncations, stats, parity,
                provenance, l);
    }

    /** This snapshot with its input range (set by the processor that applied the session's records). */
    public Snapshot withProvenance(InputRange p) {
        return new Snapshot(snapshotId, tenantId, sessionId, handoffId, fromAgent, toAgent, target, asOfSeq,
                turnCount, occurredAtMillis, framing, brick, messages, retention, truncations, stats, parity, p,
                callLedger);
    }
}
