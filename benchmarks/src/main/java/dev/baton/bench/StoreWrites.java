package dev.baton.bench;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.state.EntryKind;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionEntries;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import dev.baton.engine.tokens.Tokenizers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one input record writes to the entry store, counted per entry kind and put or delete, without Kafka: the end-to-end
 * harness's input ({@code --sessions} generated sessions of {@code --turns} turns, interleaved round-robin, a hand-off
 * after every {@code --handoff-every} turns of a session, rendered as the processor renders it and its print
 * remembered), each event applied with the engine and its changed entries flushed ({@link StateStorage#flush}) into a
 * store that behaves like Kafka Streams' record cache in front of a changelogged store: puts and deletes of one key
 * coalesce until a commit, every {@code --commit-every} input records, when each dirty key goes out as one changelog
 * record (a value, or a tombstone even for a key that never reached the changelog, as the cache does).
 *
 * <p>Besides the records, it counts the waste the brief of issue 22 names: puts of the same bytes as the entry's
 * committed value, tombstones of keys never committed, and writes coalesced away inside a commit. {@code --commit-every
 * 1} gives the raw writes (no coalescing).
 *
 * <p>{@code StoreWrites [--turns 1000] [--sessions 30] [--handoff-every 25] [--size-factor 0.1] [--commit-every 300]}
 */
public final class StoreWrites {
    private StoreWrites() {
    }

    /** Counters of one kind. */
    static final class Tally {
        long puts, deletes; // flushed by the engine (before coalescing)
        long putRecords, tombstones; // changelog records at commits
        long samePuts; // put records whose bytes equal the committed value
        long phantomTombstones; // tombstones of keys never committed
        long putBytes;
    }

    /** One session's entries behind a commit-coalescing cache. */
    static final class CachedEntries implements SessionEntries {
        final Map<EntryKind, Tally> tallies;
        /** Committed values (what the changelog holds). */
        final Map<Long, byte[]> committed = new HashMap<>();
        /** Dirty since the last commit: key to value, null a delete. */
        final LinkedHashMap<Long, byte[]> dirty = new LinkedHashMap<>();

        CachedEntries(Map<EntryKind, Tally> tallies) {
            this.tallies = tallies;
        }

        private static long key(EntryKind kind, long number) {
            return ((long) kind.ordinal() << 56) | number;
        }

        @Override
        public void put(EntryKind kind, long number, byte[] value) {
            tallies.get(kind).puts++;
            dirty.put(key(kind, number), value);
        }

        @Override
        public void delete(EntryKind kind, long number) {
            tallies.get(kind).deletes++;
            dirty.put(key(kind, number), null);
        }

        @Override
        public void scan(Visitor visitor) {
            throw new UnsupportedOperationException();
        }

        void commit() {
            for (Map.Entry<Long, byte[]> e : dirty.entrySet()) {
                EntryKind kind = EntryKind.values()[(int) (e.getKey() >>> 56)];
                Tally t = tallies.get(kind);
                byte[] before = committed.get(e.getKey());
                if (e.getValue() == null) {
                    t.tombstones++;
                    if (before == null) t.phantomTombstones++;
                    committed.remove(e.getKey());
                } else {
                    t.putRecords++;
                    t.putBytes += e.getValue().length;
                    if (before != null && Arrays.equals(before, e.getValue())) t.samePuts++;
                    committed.put(e.getKey(), e.getValue());
                }
            }
            dirty.clear();
        }
    }

    public static void main(String[] args) {
        int turns = 1_000, sessions = 30, handoffEvery = 25, commitEvery = 300;
        double sizeFactor = 0.1;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--turns" -> turns = Integer.parseInt(args[i + 1]);
                case "--sessions" -> sessions = Integer.parseInt(args[i + 1]);
                case "--handoff-every" -> handoffEvery = Integer.parseInt(args[i + 1]);
                case "--size-factor" -> sizeFactor = Double.parseDouble(args[i + 1]);
                case "--commit-every" -> commitEvery = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        Policy policy = Policy.defaults();
        SessionGenerator.Sizes sizes = SessionGenerator.Sizes.REALISTIC.scaled(sizeFactor);
        Map<EntryKind, Tally> tallies = new EnumMap<>(EntryKind.class);
        for (EntryKind k : EntryKind.values()) tallies.put(k, new Tally());
        List<SessionGenerator.Stream> streams = new ArrayList<>();
        List<SessionState> states = new ArrayList<>();
        List<StateStorage.InMemory> ids = new ArrayList<>();
        List<CachedEntries> stores = new ArrayList<>();
        List<byte[]> skeletons = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            streams.add(SessionGenerator.stream(1_000L + s, sizes));
            SessionState st = SessionState.empty();
            StateStorage.InMemory m = new StateStorage.InMemory();
            st.useHandoffIds(m.ids);
            st.journal();
            states.add(st);
            ids.add(m);
            stores.add(new CachedEntries(tallies));
            skeletons.add(null);
        }
        long[] skeletonPuts = new long[2]; // flushed (changed bytes), records at commits
        boolean[] skeletonDirty = new boolean[sessions];
        int[] applied = new int[sessions];
        long records = 0, now = 1_767_225_600_000L;
        long total = (long) turns * sessions;
        for (long i = 0; i < total; i++) {
            int s = (int) (i % sessions);
            SessionState st = states.get(s);
            Turn t = streams.get(s).next();
            List<ReadyHandoff> ready = st.offerTurn(t, policy, now).released();
            records += event(st, ready, s, records, stores, skeletons, skeletonDirty, skeletonPuts, policy, now += 10);
            if (records % commitEvery == 0) commitAll(stores, skeletonDirty, skeletonPuts);
            if (++applied[s] % handoffEvery == 0) {
                int n = applied[s] / handoffEvery;
                Target target = n % 4 == 0 ? Target.CLAUDE_CLI : Target.LOCAL;
                String to = SessionGenerator.AGENTS.get(n % SessionGenerator.AGENTS.size());
                Handoff h = new Handoff("h-" + n, t.agent().equals("user") ? null : t.agent(), to, target,
                        n % 2 == 0 ? "Take over from here." : null, null, null);
                List<ReadyHandoff> r = st.offerHandoff(h, now, policy, now).ready();
                records += event(st, r, s, records, stores, skeletons, skeletonDirty, skeletonPuts, policy, now += 10);
                if (records % commitEvery == 0) commitAll(stores, skeletonDirty, skeletonPuts);
            }
        }
        commitAll(stores, skeletonDirty, skeletonPuts);

        System.out.printf(Locale.ROOT, "%,d input records (%,d sessions x %,d turns, a hand-off every %d turns, size %.2f), "
                        + "commit every %,d records%n", records, sessions, turns, handoffEvery, sizeFactor, commitEvery);
        System.out.printf(Locale.ROOT, "%-7s %9s %9s | %9s %9s %9s %9s %9s | %10s%n", "kind", "puts", "deletes",
                "put rec", "tombst", "same", "phantom", "per rec", "put bytes");
        long allRecords = 0, allFlushed = 0;
        for (EntryKind k : EntryKind.values()) {
            Tally t = tallies.get(k);
            long recs = t.putRecords + t.tombstones;
            allRecords += recs;
            allFlushed += t.puts + t.deletes;
            System.out.printf(Locale.ROOT, "%-7s %9d %9d | %9d %9d %9d %9d %9.3f | %10d%n", k, t.puts, t.deletes,
                    t.putRecords, t.tombstones, t.samePuts, t.phantomTombstones, recs / (double) records, t.putBytes);
        }
        System.out.printf(Locale.ROOT, "entries: %.3f flushed writes and %.3f changelog records per input record; "
                        + "skeleton: %.3f changed, %.3f records per input record%n", allFlushed / (double) records,
                allRecords / (double) records, skeletonPuts[0] / (double) records, skeletonPuts[1] / (double) records);
    }

    private static int event(SessionState st, List<ReadyHandoff> ready, int s, long records,
                             List<CachedEntries> stores, List<byte[]> skeletons, boolean[] skeletonDirty,
                             long[] skeletonPuts, Policy policy, long now) {
        st.touch(now);
        InputRange before = st.inputRange();
        st.inputRange(new InputRange("in", 0, before == null ? records : before.firstOffset(), records, null, null));
        for (ReadyHandoff h : ready) {
            ContextEngine.Rendered r = ContextEngine.renderWithPrint("bench", "s-" + s, st, h, policy,
                    Tokenizers.none(), LayoutCache.none());
            if (r.print() != null) st.rememberPrint(h.handoff().toAgent(), r.print());
        }
        byte[] skeleton = StateStorage.flush(st, stores.get(s));
        if (!Arrays.equals(skeleton, skeletons.get(s))) {
            skeletonPuts[0]++;
            skeletonDirty[s] = true;
            skeletons.set(s, skeleton);
        }
        return 1;
    }

    private static void commitAll(List<CachedEntries> stores, boolean[] skeletonDirty, long[] skeletonPuts) {
        for (int s = 0; s < stores.size(); s++) {
            stores.get(s).commit();
            if (skeletonDirty[s]) skeletonPuts[1]++;
            skeletonDirty[s] = false;
        }
    }
}
