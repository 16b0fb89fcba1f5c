package dev.baton.topology;

import dev.baton.engine.snapshot.Snapshot;

/** Writes an engine {@link Snapshot} as the value bytes of a {@code ContextSnapshot} record (Avro or JSON). */
@FunctionalInterface
public interface SnapshotEncoder {
    byte[] encode(String topic, Snapshot snapshot);
}
