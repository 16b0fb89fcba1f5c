package dev.baton.engine.state;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The entries a state changed since it was last stored: what {@link StateStorage#flush} writes (puts) or removes
 * (deletes), so that one event writes its own turn and the skeleton, not the whole state. A put after a delete of
 * the same entry is a put; a delete after a put is a delete. Off (null) for states that are never stored.
 *
 * <p>Kept in three parallel arrays rather than maps of boxed numbers: one event changes a handful of entries (its own
 * turn, perhaps a dropped turn, a digest line, a trail), so a linear look-up for a repeated entry is cheaper than
 * hashing; only past {@value #LINEAR_LIMIT} changes (a settle releasing many held turns) is an index built.
 */
public final class StateJournal {
    static final int LINEAR_LIMIT = 16;
    private static final EntryKind[] KINDS = EntryKind.values();

    private byte[] kinds = new byte[8];
    private long[] numbers = new long[8];
    private boolean[] puts = new boolean[8];
    private int size;
    /** Position of each change by kind and number, once there are more than {@link #LINEAR_LIMIT}; else null. */
    private HashMap<Key, Integer> index;

    private record Key(int kind, long number) {
    }

    void put(EntryKind kind, long number) {
        record(kind, number, true);
    }

    void delete(EntryKind kind, long number) {
        record(kind, number, false);
    }

    private void record(EntryKind kind, long number, boolean put) {
        int k = kind.ordinal();
        int at = find(k, number);
        if (at >= 0) {
            puts[at] = put;
            return;
        }
        if (size == kinds.length) {
            int n = size * 2;
            kinds = java.util.Arrays.copyOf(kinds, n);
            numbers = java.util.Arrays.copyOf(numbers, n);
            puts = java.util.Arrays.copyOf(puts, n);
        }
        kinds[size] = (byte) k;
        numbers[size] = number;
        puts[size] = put;
        if (index != null) {
            index.put(new Key(k, number), size);
        } else if (size + 1 > LINEAR_LIMIT) {
            index = new HashMap<>();
            for (int i = 0; i <= size; i++) index.put(new Key(kinds[i], numbers[i]), i);
        }
        size++;
    }

    private int find(int kind, long number) {
        if (index != null) {
            Integer at = index.get(new Key(kind, number));
            return at == null ? -1 : at;
        }
        for (int i = 0; i < size; i++) {
            if (numbers[i] == number && kinds[i] == kind) return i;
        }
        return -1;
    }

    /** One change: {@code put} true writes the entry's current value, false deletes it. */
    public record Change(EntryKind kind, long number, boolean put) {
    }

    /** Receives the changes of {@link #drainTo}. */
    @FunctionalInterface
    public interface Sink {
        void change(EntryKind kind, long number, boolean put);
    }

    /** Hands over the changes in kind order, then in the order they were first made, and forgets them. */
    public void drainTo(Sink sink) {
        int n = size;
        // forget first: a sink that fails leaves no half-drained journal (the state is then dropped anyway)
        size = 0;
        index = null;
        for (EntryKind kind : KINDS) {
            int k = kind.ordinal();
            for (int i = 0; i < n; i++) {
                if (kinds[i] == k) sink.change(kind, numbers[i], puts[i]);
            }
        }
    }

    /** The changes in kind order, then in the order they were first made, and forgets them. */
    public List<Change> drain() {
        List<Change> out = new ArrayList<>(size);
        drainTo((kind, number, put) -> out.add(new Change(kind, number, put)));
        return out;
    }

    public boolean isEmpty() {
        return size == 0;
    }
}
