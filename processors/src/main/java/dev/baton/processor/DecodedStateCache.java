package dev.baton.processor;

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
 */
final class DecodedStateCache {
    private record Entry(byte[] skeleton, SessionState state, long weight) {
    }

    /** The map's entry, the {@link Entry}, the key string and the skeleton array's header, besides their bytes. */
    static final int ENTRY_OVERHEAD_BYTES = 120;

    private final long maxBytes;
    private long bytes;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
    private long hits;
    private long misses;

    DecodedStateCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The cached state stored as {@code skeleton}, removed from the cache (the caller will mutate it), or null. */
    SessionState take(String key, byte[] skeleton) {
        Entry e = entries.remove(key);
        if (e != null) bytes -= e.weight;
        if (skeleton == null) return null;
        if (e != null && (e.skeleton == skeleton || Arrays.equals(e.skeleton, skeleton))) {
            hits++;
            return e.state;
        }
        misses++;
        return null;
    }

    /** Remembers {@code state} as stored with {@code skeleton}, which the caller has just written. */
    void keep(String key, byte[] skeleton, SessionState state) {
        long weight = ENTRY_OVERHEAD_BYTES + key.length() + skeleton.length + state.weight();
        if (weight > maxBytes) {
            forget(key);
            return;
        }
        Entry old = entries.put(key, new Entry(skeleton, state, weight));
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
