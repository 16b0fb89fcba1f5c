package dev.baton.processor;

import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.state.SessionState;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decoded states of recently used sessions, so that a busy session is not read back from its entries (a range scan
 * and a decode of every live turn) on every event. Bounded in bytes (configuration
 * {@code baton.state.cache.max.bytes}, per stream task): an entry weighs what it keeps on the heap — its key and
 * skeleton, the map entry, and the decoded state ({@link SessionState#weight()}, the state's objects and the turns it
 * holds at their heap size, calibrated against heap measured after a full GC) — least recently used first out.
 *
 * <p>Correct by construction rather than by invalidation: an entry is only used when the stored skeleton's bytes are
 * equal to the bytes it was stored as. The skeleton and the entries are written in the same task and transaction,
 * so a restored, rolled-back or otherwise changed state shows in its skeleton and is simply read again. A state is
 * taken out of the cache while a record mutates it ({@link #take}) and put back only with the skeleton it was just
 * stored as ({@link #keep}); a record that fails half-way therefore never leaves a mutated object behind.
 *
 * <p>Resistant to cyclic access. A task visiting more sessions round-robin than the budget holds would get no hit at
 * all from plain LRU: each new entry evicts the least recently used one, which is exactly the next to come back.
 * Here a state that was already cached always goes back to the most recently used end, and so does a newly read one
 * while the budget has room; but once the budget is full, only every {@value #ADMIT_EVERY}th newly read state is
 * admitted (evicting the least recently used), the others are dropped after use ("bimodal insertion", Qureshi et al.,
 * ISCA 2007). Under a cycle of N sessions of which C fit, about C - (N - C) / {@value #ADMIT_EVERY} of every N visits
 * hit instead of none; a new working set still replaces the old one, at one admission per {@value #ADMIT_EVERY}
 * misses (and at once where sessions are deleted and free their room). Written by hand: Caffeine's W-TinyLFU does
 * this and more, but its weigher cannot see a state grow while it is taken out, and a dependency for this is much.
 */
final class DecodedStateCache {
    /**
     * A decoded state and, beside it, its render cache ({@link LayoutCache}: the layouts of its turns at their last
     * hand-off, which rendering reads and fills; the state itself is never written by a render). They are kept,
     * taken and dropped together: a state read again starts with an empty render cache.
     */
    record Decoded(SessionState state, LayoutCache layouts) {
    }

    private record Entry(byte[] skeleton, Decoded decoded, long weight) {
    }

    /** The map's entry, the {@link Entry}, the key string and the skeleton array's header, besides their bytes. */
    static final int ENTRY_OVERHEAD_BYTES = 120;

    /** Once the budget is full, one newly read state in this many is admitted. */
    static final int ADMIT_EVERY = 16;

    private final long maxBytes;
    private final int admitEvery;
    private long bytes;
    /** Least recently kept first: {@link #take} removes an entry and {@link #keep} appends it again. */
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(64, 0.75f, false);
    private long hits;
    private long misses;
    private long missesWhenFull;

    DecodedStateCache(long maxBytes) {
        this(maxBytes, ADMIT_EVERY);
    }

    /** @param admitEvery once full, admit one newly read state in this many (1: plain LRU) */
    DecodedStateCache(long maxBytes, int admitEvery) {
        if (admitEvery < 1) throw new IllegalArgumentException("admitEvery must be at least 1");
        this.maxBytes = maxBytes;
        this.admitEvery = admitEvery;
    }

    /** The cached state stored as {@code skeleton}, removed from the cache (the caller will mutate it), or null. */
    Decoded take(String key, byte[] skeleton) {
        Entry e = entries.remove(key);
        if (e != null) bytes -= e.weight;
        if (skeleton == null) return null;
        if (e != null && (e.skeleton == skeleton || Arrays.equals(e.skeleton, skeleton))) {
            hits++;
            return e.decoded;
        }
        misses++;
        return null;
    }

    /**
     * Remembers {@code decoded} as stored with {@code skeleton}, which the caller has just written.
     *
     * @param wasCached the state was {@link #take}n from this cache (a hit): it goes back in whatever the budget
     *                  holds; otherwise (read from the store, or new) it is admitted while there is room, and then
     *                  only one time in {@code admitEvery}
     */
    void keep(String key, byte[] skeleton, Decoded decoded, boolean wasCached) {
        // The render cache beside the state is not weighed: reserving it in the state's weight evicted sessions the
        // budget had room for; its heap is counted apart (docs/capacity.md, h).
        long weight = ENTRY_OVERHEAD_BYTES + key.length() + skeleton.length + decoded.state().weight();
        if (weight > maxBytes) {
            forget(key);
            return;
        }
        if (!wasCached && !entries.containsKey(key) && bytes + weight > maxBytes && missesWhenFull++ % admitEvery != 0) {
            return;
        }
        Entry old = entries.remove(key); // then appended: the most recently used end
        entries.put(key, new Entry(skeleton, decoded, weight));
        if (old != null) bytes -= old.weight;
        bytes += weight;
        Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
        while (bytes > maxBytes && it.hasNext()) {
            bytes -= it.next().getValue().weight;
            it.remove();
        }
    }

    void forget(String key) {
        Entry e = entries.remove(key);
        if (e != null) bytes -= e.weight;
    }

    void clear() {
        entries.clear();
        bytes = 0;
    }

    long hits() {
        return hits;
    }

    long misses() {
        return misses;
    }

    long bytes() {
        return bytes;
    }

    int size() {
        return entries.size();
    }
}
