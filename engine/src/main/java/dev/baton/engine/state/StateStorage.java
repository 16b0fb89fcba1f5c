package dev.baton.engine.state;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Stores a {@link SessionState} as a small skeleton plus one entry per item ({@link EntryKind}), in the current
 * {@link StateFormat}: {@link #flush} writes only what the state's journal says changed (one event: its own turn,
 * perhaps a few entries it changed or dropped, and the skeleton); {@link #load} reads a skeleton and the session's
 * entries back, each value with the reader of its version ({@link StateMigrations#readerOf}). Hand-off ids are not
 * entries here: they live in the state's {@link HandoffIdLog}.
 */
public final class StateStorage {
    private StateStorage() {
    }

    /** Writes the entries changed since the last flush and returns the skeleton to store. Needs the journal on. */
    public static byte[] flush(SessionState state, SessionEntries entries) {
        StateJournal journal = state.journal;
        if (journal == null) throw new IllegalStateException("the state records no changes: call journal() first");
        journal.drainTo((kind, number, put) -> {
            byte[] value = put ? encode(state, kind, number) : null;
            if (value == null) entries.delete(kind, number);
            else entries.put(kind, number, value);
        });
        return StateFormat.encodeSkeleton(state);
    }

    /** The current value of an entry, or null when the state no longer holds it. */
    static byte[] encode(SessionState s, EntryKind kind, long number) {
        switch (kind) {
            case TURN -> {
                StoredTurn t = s.transcript.find(number);
                return t == null ? null : StateFormat.encodeTurn(t);
            }
            case HELD -> {
                var t = s.ordering.held.get(number);
                return t == null ? null : StateFormat.encodeHeld(t);
            }
            case DIGEST -> {
                Compacted c = s.transcript.compacted;
                int i = c.lineSeqs.indexOf(number);
                return i < 0 ? null : StateFormat.encodeDigest(number, c.lines.get(i));
            }
            case TRAIL -> {
                TrailEntry e = s.ledger.find(number);
                return e == null ? null : StateFormat.encodeTrail(e);
            }
            case CALL -> {
                for (TrailLedger.OpenCall c : s.ledger.openCalls.values()) {
                    if (c.ordinal() == number) return StateFormat.encodeCall(c);
                }
                return null;
            }
            case PREFIX -> {
                PrefixLedger.Remembered r = s.prefixes.find(number);
                return r == null ? null : StateFormat.encodePrefix(r);
            }
            case LEDGER, LEDGER_SLOT -> {
                if (kind == EntryKind.LEDGER && number == CallLedger.COUNTERS) {
                    return StateFormat.encodeLedgerCounters(s.calls);
                }
                CallGroup g = s.calls.stored(kind, number);
                return g == null ? null : StateFormat.encodeLedgerGroup(g);
            }
            default -> throw new IllegalArgumentException(kind.name());
        }
    }

    /** Writes every entry of the state and returns its skeleton (a new, migrated or copied state). */
    public static byte[] writeAll(SessionState s, SessionEntries entries) {
        forEachKey(s, (kind, number) -> entries.put(kind, number, encode(s, kind, number)));
        s.calls.writtenWhole();
        return StateFormat.encodeSkeleton(s);
    }

    private static void forEachKey(SessionState s, java.util.function.ObjLongConsumer<EntryKind> key) {
        if (s.transcript.headUser != null) key.accept(EntryKind.TURN, s.transcript.headUser.seq);
        if (s.transcript.headAssistant != null) key.accept(EntryKind.TURN, s.transcript.headAssistant.seq);
        s.transcript.forEachBody(t -> key.accept(EntryKind.TURN, t.seq));
        for (long seq : s.ordering.held.keySet()) key.accept(EntryKind.HELD, seq);
        for (long seq : s.transcript.compacted.lineSeqs) key.accept(EntryKind.DIGEST, seq);
        for (TrailEntry e : s.ledger.trails) key.accept(EntryKind.TRAIL, e.seq);
        for (TrailLedger.OpenCall c : s.ledger.openCalls.values()) key.accept(EntryKind.CALL, c.ordinal());
        for (PrefixLedger.Remembered r : s.prefixes.remembered) key.accept(EntryKind.PREFIX, r.ordinal());
        if (s.calls.countersInEntry()) key.accept(EntryKind.LEDGER, CallLedger.COUNTERS);
        for (CallGroup g : s.calls.groups.values()) key.accept(CallLedger.kindOf(g), CallLedger.numberOf(g));
    }

    /** The ids a state remembers, oldest first, when it keeps them in memory (a migrated or engine-built state). */
    public static Map<Long, String> rememberedIds(SessionState s) {
        return s.handoffs.ids instanceof HandoffIdLog.InMemory m ? m.entries() : Map.of();
    }

    /**
     * Reads a stored state: the skeleton's fields, then every entry of the session. The state comes back with its
     * journal on and {@code ids} as its hand-off id log.
     */
    public static SessionState load(byte[] skeleton, SessionEntries entries, HandoffIdLog ids) {
        StateReader.Skeleton sk = StateMigrations.readerOf(skeleton, "session skeleton").skeleton(skeleton);
        SessionState s = sk.state();
        List<TrailEntry> trails = new ArrayList<>();
        // each entry is read by the reader of its own version (a session migrated in place holds older entries)
        List<CallGroup> groups = new ArrayList<>();
        entries.scan((kind, number, value) -> {
            switch (kind) {
                case TURN -> {
                    StoredTurn t = StateMigrations.readerOf(value, "turn entry").turn(value);
                    if (t.seq == sk.headUserSeq()) s.transcript.headUser = t;
                    else if (t.seq == sk.headAssistantSeq()) s.transcript.headAssistant = t;
                    else s.transcript.addReadBack(t);
                    s.transcript.weight += t.weight();
                }
                case HELD -> s.ordering.held.put(number, StateMigrations.readerOf(value, "held turn entry").held(value));
                case DIGEST -> {
                    StateReader.DigestEntry d = StateMigrations.readerOf(value, "digest line entry").digest(value);
                    s.transcript.compacted.lines.add(d.line());
                    s.transcript.compacted.lineSeqs.add(d.seq());
                }
                case TRAIL -> trails.add(StateMigrations.readerOf(value, "trail entry").trail(value));
                case CALL -> {
                    TrailLedger.OpenCall c = StateMigrations.readerOf(value, "open call entry").call(value);
                    s.ledger.openCalls.put(c.callId(), c);
                }
                case PREFIX -> s.prefixes.readBack(StateV3Reader.prefix(value));
                case LEDGER -> {
                    CallGroup g = StateV3Reader.ledger(value, s.calls);
                    if (g != null) groups.add(g);
                    else s.calls.countersStored = true;
                }
                case LEDGER_SLOT -> groups.add(StateV3Reader.ledgerSlot(value, number));
            }
        });
        // trails are newest first; entries come in ascending seq
        for (int i = trails.size() - 1; i >= 0; i--) s.ledger.trails.add(trails.get(i));
        s.ledger.readBack();
        s.calls.readBack(groups);
        s.useHandoffIds(ids);
        s.journal();
        s.settleReadBack();
        return s;
    }

    /** Entries and a skeleton in memory: the engine's own round trip (tests, benchmarks, the offline tools). */
    public static final class InMemory implements SessionEntries {
        private final java.util.TreeMap<EntryKind, java.util.TreeMap<Long, byte[]>> entries =
                new java.util.TreeMap<>();
        public final HandoffIdLog.InMemory ids = new HandoffIdLog.InMemory();
        public byte[] skeleton;

        @Override
        public void put(EntryKind kind, long number, byte[] value) {
            entries.computeIfAbsent(kind, k -> new java.util.TreeMap<>()).put(number, value);
        }

        @Override
        public void delete(EntryKind kind, long number) {
            java.util.TreeMap<Long, byte[]> m = entries.get(kind);
            if (m != null) m.remove(number);
        }

        @Override
        public void scan(Visitor visitor) {
            for (Map.Entry<EntryKind, java.util.TreeMap<Long, byte[]>> k : entries.entrySet()) {
                for (Map.Entry<Long, byte[]> e : k.getValue().entrySet()) visitor.entry(k.getKey(), e.getKey(), e.getValue());
            }
        }

        /** Stores {@code state} here: everything the first time, then what its journal says changed. */
        public InMemory store(SessionState state) {
            if (state.handoffs.ids != ids) {
                rememberedIds(state).forEach(ids::put);
                skeleton = writeAll(state, this);
                state.useHandoffIds(ids);
                state.journal().drain();
            } else {
                skeleton = flush(state, this);
            }
            return this;
        }

        public SessionState load() {
            return StateStorage.load(skeleton, this, ids);
        }

        /** How many entries of this kind are stored. */
        public int count(EntryKind kind) {
            java.util.TreeMap<Long, byte[]> m = entries.get(kind);
            return m == null ? 0 : m.size();
        }

        /** Bytes of the stored entries of this kind (values only). */
        public long bytes(EntryKind kind) {
            java.util.TreeMap<Long, byte[]> m = entries.get(kind);
            long n = 0;
            if (m != null) for (byte[] v : m.values()) n += v.length;
            return n;
        }

        /** Everything stored, in a deterministic order: skeleton, then each entry, then the ids. */
        public byte[] dump() {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.writeBytes(skeleton);
            scan((kind, number, value) -> {
                out.write(kind.code());
                out.writeBytes(Long.toString(number).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                out.writeBytes(value);
            });
            ids.entries().forEach((o, id) -> out.writeBytes((o + "=" + id + ";").getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            return out.toByteArray();
        }

        /** A copy of {@code state} through the stored form (the original is left as it is). */
        public static SessionState roundTrip(SessionState state) {
            return of(state).load();
        }

        /** The stored form of {@code state} (the original is left as it is). */
        public static InMemory of(SessionState state) {
            InMemory m = new InMemory();
            rememberedIds(state).forEach(m.ids::put);
            m.skeleton = writeAll(state, m);
            return m;
        }
    }
}
