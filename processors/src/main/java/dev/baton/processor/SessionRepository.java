package dev.baton.processor;

import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.state.EntryKind;
import dev.baton.engine.state.HandoffIdLog;
import dev.baton.engine.state.SessionEntries;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateFormat;
import dev.baton.engine.state.StateMigrations;
import dev.baton.engine.state.StateStorage;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Where sessions are kept: loads a {@link SessionState} (from the decoded-state cache, or from its skeleton and its
 * entries), stores what an event changed, deletes an expired session, and keeps the timer index in step. Three
 * changelogged RocksDB stores:
 * <ul>
 *   <li>{@value #SKELETON_STORE}: key {@code tenant/session}, value the skeleton ({@link StateFormat}, low kilobytes
 *       whatever the session's length) — also the store interactive queries ask for the session's owner;</li>
 *   <li>{@value #ENTRY_STORE}: one entry per turn, held turn, digest line, trail and open legacy call; key
 *       {@code UTF-8(tenant/session) 0x00 kind seq(8 bytes, big-endian)}, so one session's entries of one kind are a
 *       contiguous range in seq order, read with one range scan and deleted when compaction drops them;</li>
 *   <li>{@value #HANDOFF_ID_STORE}: the remembered hand-off ids, two entries per id ({@code ... 0x00 'I' id} →
 *       ordinal and {@code ... 0x00 'O' ordinal} → id: "seen?" and "forget the oldest").</li>
 * </ul>
 * A session stored by an older format version is brought to the current one by {@link StateMigrations} when it is
 * loaded (a version-1 blob's entries are written at once); a session of version 1 or 2 takes its input range from
 * format 2's store {@value SessionProvenance#STORE}, which is deleted there when the session is stored (as the
 * current version) or deleted.
 */
public final class SessionRepository {
    public static final String SKELETON_STORE = "baton-session-state";
    public static final String ENTRY_STORE = "baton-session-entries";
    public static final String HANDOFF_ID_STORE = "baton-handoff-ids";

    private final KeyValueStore<String, byte[]> skeletons;
    private final KeyValueStore<Bytes, byte[]> entries;
    private final KeyValueStore<Bytes, byte[]> ids;
    private final SessionProvenance formerRanges;
    private final DecodedStateCache cache;

    /** @param formerRanges format 2's store of input ranges (migrated from on first load), or null when none */
    SessionRepository(KeyValueStore<String, byte[]> skeletons, KeyValueStore<Bytes, byte[]> entries,
                      KeyValueStore<Bytes, byte[]> ids, KeyValueStore<String, byte[]> formerRanges, long cacheBytes) {
        this.skeletons = skeletons;
        this.entries = entries;
        this.ids = ids;
        this.formerRanges = new SessionProvenance(formerRanges);
        this.cache = new DecodedStateCache(cacheBytes);
    }

    public static StoreBuilder<KeyValueStore<String, byte[]>> skeletonStoreBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SKELETON_STORE), Serdes.String(),
                Serdes.ByteArray()).withLoggingEnabled(Map.of()).withCachingEnabled();
    }

    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> entryStoreBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ENTRY_STORE), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingEnabled(Map.of()).withCachingEnabled();
    }

    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> handoffIdStoreBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(HANDOFF_ID_STORE), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingEnabled(Map.of()).withCachingEnabled();
    }

    /**
     * A loaded session: its state (empty when none is stored) and the render cache held beside it (passed into
     * rendering; kept with the decoded state), the skeleton it was stored as (null when none, or when
     * it was a v1 blob just migrated), whether anything was stored, whether storing must first delete what is
     * stored (an expired session starting again), whether the state came from the decoded-state cache, and whether
     * its input range was taken from format 2's store (deleted there when the state is stored).
     */
    record Loaded(String key, SessionState state, LayoutCache layouts, byte[] skeleton, boolean existed,
                  boolean replaces, boolean cached, boolean formerRange) {
    }

    /** The session's state, or a fresh empty one. The caller mutates it, then {@link #store}s it. */
    Loaded load(String key) {
        byte[] skeleton = skeletons.get(key);
        if (skeleton == null) {
            cache.forget(key);
            return new Loaded(key, fresh(key), new LayoutCache(), null, false, false, false, false);
        }
        DecodedStateCache.Decoded cached = cache.take(key, skeleton);
        if (cached != null) return new Loaded(key, cached.state(), cached.layouts(), skeleton, true, false, true, false);
        Ids log = new Ids(prefix(key), ids);
        StateMigrations.Current current = StateMigrations.load(skeleton, new Entries(prefix(key), entries), log,
                () -> formerRanges.take(key));
        log.flush(); // a version-1 session's remembered ids are written now, with its entries
        return new Loaded(key, current.state(), new LayoutCache(), current.blobToReplace() ? null : skeleton, true,
                false, false, current.rangeFromFormerStore());
    }

    /** Reads a stored state from read-only stores (interactive queries): null when the session has none. */
    public static SessionState read(String key, ReadOnlyKeyValueStore<String, byte[]> skeletons,
                                    ReadOnlyKeyValueStore<Bytes, byte[]> entries,
                                    ReadOnlyKeyValueStore<Bytes, byte[]> ids) {
        byte[] skeleton = skeletons.get(key);
        if (skeleton == null) return null;
        return StateMigrations.read(skeleton, new Entries(prefix(key), entries), new Ids(prefix(key), ids));
    }

    private SessionState fresh(String key) {
        SessionState s = SessionState.empty();
        s.useHandoffIds(new Ids(prefix(key), ids));
        s.journal();
        return s;
    }

    /** The state's id log, bound to this repository's store. */
    private Ids idsOf(Loaded loaded, SessionState state) {
        if (state.handoffIds() instanceof Ids mine) return mine;
        throw new IllegalStateException("session " + loaded.key() + " keeps its hand-off ids elsewhere");
    }

    /**
     * Writes what the state's journal names and its skeleton (skipped when unchanged), remembers the decoded state,
     * and returns the skeleton stored.
     */
    byte[] store(Loaded loaded, SessionState state) {
        if (loaded.replaces()) delete(loaded.key());
        Ids log = idsOf(loaded, state);
        byte[] skeleton = StateStorage.flush(state, new Entries(log.prefix, entries));
        log.flush();
        if (loaded.skeleton() == null || !Arrays.equals(loaded.skeleton(), skeleton)) skeletons.put(loaded.key(), skeleton);
        if (loaded.formerRange()) formerRanges.forget(loaded.key());
        cache.keep(loaded.key(), skeleton, new DecodedStateCache.Decoded(state, loaded.layouts()), loaded.cached());
        return skeleton;
    }

    /** Deletes the session: its skeleton, every entry and every remembered id (and a format-2 input range). */
    void delete(String key) {
        cache.forget(key);
        byte[] skeleton = skeletons.get(key);
        if (skeleton != null && StateMigrations.keepsRangeApart(skeleton)) formerRanges.forget(key);
        skeletons.delete(key);
        deletePrefix(entries, prefix(key));
        deletePrefix(ids, prefix(key));
    }

    /**
     * An empty state in place of a stored one (expired, not yet visited by the punctuator): what is stored is deleted
     * when the new state is {@link #store}d, so that a failure before then leaves the store as it was.
     */
    Loaded restart(Loaded stored) {
        cache.forget(stored.key());
        return new Loaded(stored.key(), fresh(stored.key()), new LayoutCache(), null, false, true, false, false);
    }

    void clearCache() {
        cache.clear();
    }

    DecodedStateCache cache() {
        return cache;
    }

    private static void deletePrefix(KeyValueStore<Bytes, byte[]> store, byte[] prefix) {
        List<Bytes> keys = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(prefix), Bytes.wrap(upper(prefix)))) {
            while (it.hasNext()) keys.add(it.next().key);
        }
        for (Bytes k : keys) store.delete(k);
    }

    /** {@code UTF-8(session key) 0x00}: session ids never contain a NUL, so no session's prefix is another's. */
    static byte[] prefix(String sessionKey) {
        byte[] k = sessionKey.getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(k, k.length + 1);
    }

    /** The largest key with this prefix that the stores use (every byte after the prefix is at most 0xFF). */
    private static byte[] upper(byte[] prefix) {
        byte[] u = Arrays.copyOf(prefix, prefix.length + 1);
        u[prefix.length] = (byte) 0xFF;
        return u;
    }

    static Bytes entryKey(byte[] prefix, EntryKind kind, long number) {
        return Bytes.wrap(key(prefix, kind.code(), number));
    }

    /** {@code prefix tag number(8 bytes, big-endian)}: one array, written in place. */
    private static byte[] key(byte[] prefix, byte tag, long number) {
        int p = prefix.length;
        byte[] k = Arrays.copyOf(prefix, p + 9);
        k[p] = tag;
        for (int i = 8; i >= 1; i--) {
            k[p + i] = (byte) number;
            number >>>= 8;
        }
        return k;
    }

    /** One session's entries in {@value #ENTRY_STORE}. */
    private record Entries(byte[] prefix, ReadOnlyKeyValueStore<Bytes, byte[]> store) implements SessionEntries {
        @Override
        public void put(EntryKind kind, long number, byte[] value) {
            ((KeyValueStore<Bytes, byte[]>) store).put(entryKey(prefix, kind, number), value);
        }

        @Override
        public void delete(EntryKind kind, long number) {
            ((KeyValueStore<Bytes, byte[]>) store).delete(entryKey(prefix, kind, number));
        }

        @Override
        public void scan(Visitor visitor) {
            try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(prefix), Bytes.wrap(upper(prefix)))) {
                while (it.hasNext()) {
                    KeyValue<Bytes, byte[]> kv = it.next();
                    byte[] k = kv.key.get();
                    if (k.length != prefix.length + 9) continue;
                    ByteBuffer b = ByteBuffer.wrap(k, prefix.length, 9);
                    EntryKind kind = EntryKind.ofCode(b.get());
                    visitor.entry(kind, b.getLong(), kv.value);
                }
            }
        }
    }

    /**
     * One session's remembered hand-off ids in {@value #HANDOFF_ID_STORE}. Changes are kept until {@link #flush}
     * (when the state is stored), so that a record that fails half-way writes no id.
     */
    static final class Ids implements HandoffIdLog {
        private final byte[] prefix;
        private final ReadOnlyKeyValueStore<Bytes, byte[]> store;
        /** Pending changes: ordinal to id (null: forget it), and id to present or not. */
        private final Map<Long, String> byOrdinal = new java.util.LinkedHashMap<>();
        private final Map<Long, String> forgotten = new java.util.LinkedHashMap<>();
        private final Map<String, Boolean> present = new java.util.HashMap<>();

        Ids(byte[] prefix, ReadOnlyKeyValueStore<Bytes, byte[]> store) {
            this.prefix = prefix;
            this.store = store;
        }

        private Bytes idKey(String id) {
            byte[] b = id.getBytes(StandardCharsets.UTF_8);
            return Bytes.wrap(ByteBuffer.allocate(prefix.length + 1 + b.length).put(prefix).put((byte) 'I').put(b).array());
        }

        private Bytes ordinalKey(long ordinal) {
            return Bytes.wrap(key(prefix, (byte) 'O', ordinal));
        }

        @Override
        public boolean contains(String handoffId) {
            Boolean p = present.get(handoffId);
            if (p != null) return p;
            return store.get(idKey(handoffId)) != null;
        }

        @Override
        public void put(long ordinal, String handoffId) {
            byOrdinal.put(ordinal, handoffId);
            present.put(handoffId, Boolean.TRUE);
        }

        @Override
        public void remove(long ordinal) {
            String id = byOrdinal.remove(ordinal);
            if (id == null) {
                byte[] stored = store.get(ordinalKey(ordinal));
                if (stored == null) return;
                id = new String(stored, StandardCharsets.UTF_8);
                forgotten.put(ordinal, id);
            }
            present.put(id, Boolean.FALSE);
        }

        /** Writes the pending changes. */
        void flush() {
            KeyValueStore<Bytes, byte[]> w = (KeyValueStore<Bytes, byte[]>) store;
            for (Map.Entry<Long, String> e : forgotten.entrySet()) {
                w.delete(ordinalKey(e.getKey()));
                w.delete(idKey(e.getValue()));
            }
            for (Map.Entry<Long, String> e : byOrdinal.entrySet()) {
                w.put(idKey(e.getValue()), ByteBuffer.allocate(8).putLong(e.getKey()).array());
                w.put(ordinalKey(e.getKey()), e.getValue().getBytes(StandardCharsets.UTF_8));
            }
            forgotten.clear();
            byOrdinal.clear();
            present.clear();
        }
    }
}
