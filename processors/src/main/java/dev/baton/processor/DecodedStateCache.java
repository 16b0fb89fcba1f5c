package dev.baton.processor;

import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.SessionStateCodec;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decoded session states of recently used sessions, so that a busy session is not decoded from the store on every
 * event (decoding is a fifth of the stream thread's time on long sessions).
 *
 * <p>Correct by construction rather than by invalidation: an entry is only used when the store's bytes are equal to
 * the bytes it was encoded to, so a restored, rolled-back or otherwise changed store value is simply decoded again.
 * A state is taken out of the cache while a record mutates it ({@link #take}) and put back only with the bytes it was
 * just stored as ({@link #keep}); a record that fails half-way therefore never leaves a mutated object behind.
 * Bounded by the total size of the encoded states it stands for.
 */
final class DecodedStateCache {
    private record Entry(byte[] bytes, SessionState state) {
    }

    private final long maxBytes;
    private long bytes;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
    private long hits;
    private long misses;

    DecodedStateCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * The decoded form of {@code stored} for {@code key}, removed from the cache (the caller will mutate it), or a
     * fresh decode; an empty state when nothing is stored.
     */
    SessionState take(String key, byte[] stored) {
        Entry e = entries.remove(key);
        if (e != null) bytes -= e.bytes.length;
        if (stored == null) return SessionState.empty();
        if (e != null && (e.bytes == stored || Arrays.equals(e.bytes, stored))) {
            hits++;
            return e.state;
        }
        misses++;
        return SessionStateCodec.decode(stored);
    }

    /** Remembers {@code state} as the decoded form of {@code stored}, which the caller has just written. */
    void keep(String key, byte[] stored, SessionState state) {
        if (stored.length > maxBytes) return;
        Entry old = entries.put(key, new Entry(stored, state));
        if (old != null) bytes -= old.bytes.length;
        bytes += stored.length;
        Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
        while (bytes > maxBytes && it.hasNext()) {
            bytes -= it.next().getValue().bytes.length;
            it.remove();
        }
    }

    void forget(String key) {
        Entry e = entries.remove(key);
        if (e != null) bytes -= e.bytes.length;
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
}
