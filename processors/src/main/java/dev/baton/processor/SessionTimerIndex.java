package dev.baton.processor;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The timer index: a small key-value store ({@code baton-session-timers}) that lets the wall-clock punctuator visit
 * only the sessions that have something due, instead of iterating every session every second.
 *
 * <p>Two kinds of keys share the store:
 * <ul>
 *   <li>{@code due/<due-millis, 20 digits>/<tenant/session>} -> bit set of {@link #GAP}, {@link #HANDOFF},
 *       {@link #CLOSED}, {@link #IDLE}, {@link #RECHECK}: a visit is due at that wall-clock time. The zero-padded
 *       millis make the byte order of the keys their time order, so "everything due by now" is one range scan from
 *       the start of the index.</li>
 *   <li>{@code idle/<tenant/session>} -> the due time of the session's current idle-TTL entry, so that the entry
 *       can be moved when the session sees activity (otherwise every event would leave a stale entry behind).</li>
 * </ul>
 * Idle deadlines are rounded up to a whole minute ({@link #IDLE_ROUNDING_MILLIS}), so a busy session rewrites its
 * idle entry at most once a minute; the TTL is days, so a minute late does not matter.
 *
 * <p>Entries are hints, not truth: a visit asks the session state what is due ({@code onWallClock}, {@code expired})
 * and a visit that finds nothing to do costs one store read. Entries are removed when visited.
 */
public final class SessionTimerIndex {
    public static final long GAP = 1, HANDOFF = 2, CLOSED = 4, IDLE = 8, RECHECK = 16;
    public static final long IDLE_ROUNDING_MILLIS = 60_000L;

    private static final String DUE = "due/";
    private static final String IDLE_MEMO = "idle/";

    private final KeyValueStore<String, Long> store;

    public SessionTimerIndex(KeyValueStore<String, Long> store) {
        this.store = store;
    }

    /** A session and the reasons its visit is due. */
    public record Due(String sessionKey, long kinds) {
    }

    /** Adds a visit for {@code sessionKey} at {@code dueMillis} for the given reason(s). */
    public void schedule(String sessionKey, long dueMillis, long kinds) {
        String key = dueKey(dueMillis, sessionKey);
        Long existing = store.get(key);
        long merged = existing == null ? kinds : existing | kinds;
        if (existing == null || merged != existing) store.put(key, merged);
    }

    /** Moves the session's idle-TTL visit to {@code lastActivityMillis + ttl} (rounded up to the minute). */
    public void scheduleIdle(String sessionKey, long lastActivityMillis, long idleTtlMillis) {
        long due = roundUp(saturatedAdd(lastActivityMillis, idleTtlMillis));
        String memoKey = IDLE_MEMO + sessionKey;
        Long previous = store.get(memoKey);
        if (previous != null && previous == due) return;
        if (previous != null) unschedule(sessionKey, previous, IDLE);
        schedule(sessionKey, due, IDLE);
        store.put(memoKey, due);
    }

    /** The due time of the session's idle entry, or null when it has none. */
    public Long idleDue(String sessionKey) {
        return store.get(IDLE_MEMO + sessionKey);
    }

    /** Removes the session's idle entry and memo (its state was deleted). Other entries die when visited. */
    public void forget(String sessionKey) {
        Long previous = store.get(IDLE_MEMO + sessionKey);
        if (previous != null) {
            unschedule(sessionKey, previous, IDLE);
            store.delete(IDLE_MEMO + sessionKey);
        }
    }

    /**
     * Removes and returns the sessions with a visit due at or before {@code nowMillis}, earliest first, at most
     * {@code limit} sessions (the rest stay for the next punctuation, which bounds the time one punctuation takes).
     */
    public List<Due> takeDue(long nowMillis, int limit) {
        Map<String, Long> sessions = new LinkedHashMap<>();
        List<String> keys = new ArrayList<>();
        // '/' sorts before '0', so every key with a due time <= now sorts before DUE + pad(now) + "0".
        try (KeyValueIterator<String, Long> it = store.range(DUE, DUE + pad(nowMillis) + "0")) {
            while (it.hasNext()) {
                KeyValue<String, Long> kv = it.next();
                String session = kv.key.substring(DUE.length() + 21);
                if (!sessions.containsKey(session) && sessions.size() >= limit) break;
                sessions.merge(session, kv.value == null ? 0L : kv.value, (a, b) -> a | b);
                keys.add(kv.key);
            }
        }
        for (String key : keys) {
            store.delete(key);
            String session = key.substring(DUE.length() + 21);
            // an idle entry that fired is gone: drop its memo so that the next activity schedules a fresh one
            Long memo = store.get(IDLE_MEMO + session);
            if (memo != null && memo <= nowMillis) store.delete(IDLE_MEMO + session);
        }
        List<Due> due = new ArrayList<>(sessions.size());
        sessions.forEach((k, v) -> due.add(new Due(k, v)));
        return due;
    }

    private void unschedule(String sessionKey, long dueMillis, long kinds) {
        String key = dueKey(dueMillis, sessionKey);
        Long existing = store.get(key);
        if (existing == null) return;
        long rest = existing & ~kinds;
        // another reason shares the same millisecond: keep the entry for it
        if (rest == 0) store.delete(key);
        else store.put(key, rest);
    }

    static String dueKey(long dueMillis, String sessionKey) {
        return DUE + pad(dueMillis) + "/" + sessionKey;
    }

    static String pad(long millis) {
        String digits = Long.toString(Math.max(0, millis));
        return "0".repeat(20 - digits.length()) + digits;
    }

    private static long roundUp(long millis) {
        long r = millis % IDLE_ROUNDING_MILLIS;
        return r == 0 ? millis : saturatedAdd(millis, IDLE_ROUNDING_MILLIS - r);
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
