package dev.baton.engine.state;

import dev.baton.engine.model.Turn;

/**
 * Reads the stored values of one format version (a skeleton, and one entry of each {@link EntryKind}) into the
 * engine's in-memory state, which has no version: storing it again writes the current version ({@link StateFormat}).
 * One implementation per version that stores a skeleton and entries ({@link StateV3Reader}, {@link StateV2Reader});
 * version 1 stored one blob per session and has its own shape ({@link StateV1Reader}). {@link StateMigrations} picks
 * the reader of a value by its version byte. Each method refuses a value of another version.
 */
interface StateReader {
    /** The version this reader reads (the first byte of every value it accepts). */
    int version();

    Skeleton skeleton(byte[] value);

    // Versions 2 and 3 store entries in one layout (StateV3Reader's field readers); a version whose entries differ
    // overrides these.

    default StoredTurn turn(byte[] value) {
        return StateV3Reader.turnFields(fields(value, version(), "turn entry"));
    }

    default Turn held(byte[] value) {
        return StateV3Reader.heldFields(fields(value, version(), "held turn entry"));
    }

    default DigestEntry digest(byte[] value) {
        return StateV3Reader.digestFields(fields(value, version(), "digest line entry"));
    }

    default TrailEntry trail(byte[] value) {
        return StateV3Reader.trailFields(fields(value, version(), "trail entry"));
    }

    default TrailLedger.OpenCall call(byte[] value) {
        return StateV3Reader.callFields(fields(value, version(), "open call entry"));
    }

    /** A decoded skeleton: the state without its entries, and the seqs of the head turns (-1 when none). */
    record Skeleton(SessionState state, long headUserSeq, long headAssistantSeq) {
    }

    /** A digest line entry: its seq and line. */
    record DigestEntry(long seq, String line) {
    }

    /** A reader of {@code value}'s fields after its version byte, which must be {@code version}. */
    static Binary.Reader fields(byte[] value, int version, String what) {
        int v = StateFormat.versionOf(value);
        if (v != version) {
            throw new IllegalStateException("a version-" + v + " " + what + " given to the reader of version " + version);
        }
        return new Binary.Reader(value, 1);
    }
}
