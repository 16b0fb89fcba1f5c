package dev.baton.engine.snapshot;

import dev.baton.engine.model.Target;

import java.util.List;

/**
 * The engine's output for one hand-off: mirrors the Avro {@code ContextSnapshot} of CONTRACT.md §3 field for field.
 */
public record Snapshot(String snapshotId, String tenantId, String sessionId, String handoffId, String fromAgent,
                       String toAgent, Target target, long asOfSeq, long turnCount, long occurredAtMillis,
                       Framing framing, String brick, List<Message> messages, Retention retention,
                       List<Truncation> truncations, Stats stats, Parity parity) {
    public Snapshot {
        messages = List.copyOf(messages);
        truncations = List.copyOf(truncations);
    }
}
