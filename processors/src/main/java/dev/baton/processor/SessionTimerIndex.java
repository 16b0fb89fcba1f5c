package dev.baton.processor;

import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.SessionState;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The timer index: a small key-value store ({@code baton-session-timers}) that lets the wall-clock punctuator visit
 * only the sessions that have something due, instead of iterating every session every second.
 *
 * <p>Each session with state has one entry {@code <due-millis, 20 digits>/<tenant/session>}, where the due time is
 * {@link SessionState#nextDueMillis} (the earliest of: a held gap's wait, a waiting hand-off's wait, Closed + grace,
 * last event + idle TTL). The zero-padded millis make the byte order of the keys their time order, so "everything
 * due by now" is one range scan from the start of the store, and the scan stops at the first key in the future.
 *
 * <p>When the due time is the idle TTL it is rounded up to a whole minute ({@link #IDLE_ROUNDING_MILLIS}): the TTL
 * is days, and without rounding every event of a busy session would move its entry (a delete and a put). Waits for
 * gaps and hand-offs stay exact.
 *
 * <p>Entries are hints: a visit asks the state what is due ({@code onWallClock}, {@code expired}), so an entry left
 * behind (e.g. after a tenant policy changed the waits) costs one store read and then disappears.
 */
public final class SessionTimerIndex {
    public static final long IDLE_ROUNDING_MILLIS = 60_000L;
    /** No entry: the state has nothing that can ever become due. */
    public static final long NEVER = Long.MAX_VALUE;

    private final KeyValueStore<String, Long> store;

    public SessionTimerIndex(KeyValueStore<String, Long> store) {
        this.store = store;
    }

    /** The index time of a state: its next due time, rounded up to the minute when that is the idle TTL. */
    public static long indexDue(SessionState state, Policy policy) {
        long due = state.nextDueMillis(policy);
        if (due == NEVER) return NEVER;
        long idle = state.lastEventMillis() < 0 ? NEVER : saturatedAdd(state.lastEventMillis(), policy.idleTtlMillis());
        return due == idle ? roundUp(due) : due;
    }

    /** Moves the session's entry from {@code before} to {@code after} (either may be {@link #NEVER}). */
    public void move(String sessionKey, long before, long after) {
        if (before == after) return;
        if (before != NEVER) store.delete(key(before, sessionKey));
        if (after != NEVER) store.put(key(after, sessionKey), after);
    }

    /**
     * Removes and returns the sessions with an entry due at or before {@code nowMillis}, earliest first, at most
     * {@code limit} (the rest stay for the next punctuation, which bounds the time one punctuation takes).
     */
    public List<String> takeDue(long nowMillis, int limit) {
        List<String> keys = new ArrayList<>();
        // '/' sorts before '0': every key due at or before now sorts before pad(now) + "0".
        try (KeyValueIterator<String, Long> it = store.range(pad(0), pad(nowMillis) + "0")) {
            while (it.hasNext() && keys.size() < limit) {
                KeyValue<String, Long> kv = it.next();
                keys.add(kv.key);
            }
        }
        // a session can have a left-over entry besides its current one: visit it once
        Set<String> sessions = new LinkedHashSet<>();
        for (String key : keys) {
            store.delete(key);
            sessions.add(key.substring(21));
        }
        return new ArrayList<>(sessions);
    }

    static String key(long dueMillis, String sessionKey) {
        return pad(dueMillis) + "/" + sessionKey;
    }

    static String pad(long millis) {
        String digits = Long.toString(Math.max(0, millis));
        return "0".repeat(20 - digits.length()) + digits;
    }

    static long roundUp(long millis) {
        long r = Math.floorMod(millis, IDLE_ROUNDING_MILLIS);
        return r == 0 ? millis : saturatedAdd(millis, IDLE_ROUNDING_MILLIS - r);
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
