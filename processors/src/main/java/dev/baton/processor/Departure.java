package dev.baton.processor;

import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.snapshot.Snapshot;

/** What leaves a session's step: a snapshot for a ready hand-off, or a dead letter for the record. */
public sealed interface Departure {
    record SnapshotOut(Snapshot snapshot) implements Departure {
    }

    /** The record's original bytes with the reason it could not be applied. */
    record DeadLetterOut(ErrorCode code, String message, byte[] key, byte[] value) implements Departure {
    }
}
