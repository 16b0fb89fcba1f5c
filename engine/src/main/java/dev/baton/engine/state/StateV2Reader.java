package dev.baton.engine.state;

import dev.baton.engine.snapshot.InputRange;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads format version 2: the same entries as version 3 (every entry layout is {@link StateV3Reader}'s), and a
 * skeleton without version 3's last field, the input range. Version 2 kept each session's input range in a store of
 * its own ({@code baton-session-provenance}); {@link #formerRange} reads a value of that store, and
 * {@link StateMigrations} puts it into the state when it brings a version-2 session to the current version.
 *
 * <p>Layout of a former range value (big-endian, about 40 bytes): byte 1 (its own version), byte flags (1: Kafka
 * half present, 2: line half present), then if Kafka: UTF-8 topic length (int) and bytes, partition (int), first and
 * last offset (long); if lines: first and last line (long).
 */
final class StateV2Reader implements StateReader {
    static final byte VERSION = 2;
    static final StateV2Reader INSTANCE = new StateV2Reader();

    private StateV2Reader() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public Skeleton skeleton(byte[] value) {
        Binary.Reader r = StateReader.fields(value, VERSION, "session skeleton");
        Skeleton s = StateV3Reader.skeletonFields(r); // no input range: the state has none until migrated
        r.end();
        return s;
    }

    /** A value of version 2's range store ({@code baton-session-provenance}), or null for none. */
    static InputRange formerRange(byte[] bytes) {
        if (bytes == null) return null;
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte version = b.get();
        if (version != 1) throw new IllegalStateException("unknown provenance entry version " + version);
        byte flags = b.get();
        String topic = null;
        Integer partition = null;
        Long firstOffset = null, lastOffset = null, firstLine = null, lastLine = null;
        if ((flags & 1) != 0) {
            byte[] t = new byte[b.getInt()];
            b.get(t);
            topic = new String(t, StandardCharsets.UTF_8);
            partition = b.getInt();
            firstOffset = b.getLong();
            lastOffset = b.getLong();
        }
        if ((flags & 2) != 0) {
            firstLine = b.getLong();
            lastLine = b.getLong();
        }
        return new InputRange(topic, partition, firstOffset, lastOffset, firstLine, lastLine);
    }
}
