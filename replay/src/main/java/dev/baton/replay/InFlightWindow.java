package dev.baton.replay;

/**
 * The records the replay sent to one input partition and the application has not committed yet, by offset: a ring of
 * our own (ArrayDeque has no access by index, and a dead letter names its record by partition and offset).
 */
final class InFlightWindow {
    /** One in-flight record: its position and, for a hand-off, what answers it. */
    static final class Entry {
        final long position;
        final String snapshotId;
        final boolean mayWait;
        final int bytes;
        boolean resolved;

        Entry(long position, String snapshotId, boolean mayWait, int bytes) {
            this.position = position;
            this.snapshotId = snapshotId;
            this.mayWait = mayWait;
            this.bytes = bytes;
        }
    }

    /** The offset of the oldest record held. */
    long baseOffset;
    private Entry[] ring = new Entry[1024];
    private int head;
    private int size;

    int size() {
        return size;
    }

    void add(Entry e) {
        if (size == ring.length) {
            Entry[] bigger = new Entry[ring.length * 2];
            for (int i = 0; i < size; i++) {
                bigger[i] = ring[(head + i) % ring.length];
            }
            ring = bigger;
            head = 0;
        }
        ring[(head + size) % ring.length] = e;
        size++;
    }

    /** The record sent at {@code offset}, or null when it is not held. */
    Entry at(long offset) {
        long i = offset - baseOffset;
        return i < 0 || i >= size ? null : ring[(int) ((head + i) % ring.length)];
    }

    Entry first() {
        return size == 0 ? null : ring[head];
    }

    /** Takes out the oldest record (the application committed it). */
    Entry poll() {
        Entry e = ring[head];
        ring[head] = null;
        head = (head + 1) % ring.length;
        size--;
        baseOffset++;
        return e;
    }
}
