package dev.baton.engine.state;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.Snapshot;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stored formats of every version stay readable: committed golden bytes (src/test/resources/state/) written from
 * {@link StoredFormatScenario} — v1 by the former single-blob JSON codec, v2 and v3 by {@link StateStorage} (v3 with
 * an input range in the skeleton) — decode into a state that renders exactly what the scenario's events render when
 * applied afresh, and goes on accepting events the same way. A changed layout without a new version fails
 * {@link #shouldWriteTheV3GoldenBytesUnchanged}; the files of released versions are never rewritten (write a new
 * file for a new version with {@code -Dbaton.golden.write=v4} and keep decoding the old ones).
 */
class StoredFormatGoldenTest {
    static final Path V1 = Path.of("src/test/resources/state/v1-session-blob.bin");
    static final Path V2 = Path.of("src/test/resources/state/v2-session-entries.bin");
    static final Path V3 = Path.of("src/test/resources/state/v3-session-entries.bin");
    /** Both halves, so that the golden bytes hold every field of the range (a real session has one of them). */
    static final InputRange RANGE = new InputRange("baton.session-events", 3, 1_000L, 1_070L, 7L, 70L);

    static SessionState fresh() {
        return StoredFormatScenario.apply(SessionState.empty());
    }

    /**
     * {@link #behaviourWithLedger} without the call ledger: the golden states were stored before the ledger existed,
     * and such a state reads as an empty ledger (docs/state-format.md), so only the rest can equal the scenario's.
     */
    static List<Snapshot> behaviour(SessionState s) {
        List<Snapshot> out = new ArrayList<>();
        for (Snapshot snap : behaviourWithLedger(s)) out.add(snap.withCallLedger(null));
        return out;
    }

    /** Renders every kind of hand-off, then goes on: the missing seq 64 arrives and releases the waiting one. */
    static List<Snapshot> behaviourWithLedger(SessionState s) {
        List<Snapshot> out = new ArrayList<>();
        for (Handoff h : List.of(new Handoff("g-1", "qwen", "opus", Target.LOCAL, "brief", null, null),
                new Handoff("g-2", "opus", "qwen", Target.LOCAL, null, null, 2_000),
                new Handoff("g-3", "qwen", "coder", Target.CLAUDE_CLI, null, null, null))) {
            out.add(ContextEngine.render("acme", "s-golden", s, new ReadyHandoff(h, 5L, null), StoredFormatScenario.POLICY));
        }
        assertThat(s.offerHandoff(new Handoff("h-1", "a", "b", Target.LOCAL, null, null, null), 1, StoredFormatScenario.POLICY,
                1).kind()).as("a remembered id").isEqualTo(HandoffOutcome.Kind.DUPLICATE);
        TurnOutcome o = s.offerTurn(Turn.of(64, "opus", Role.ASSISTANT, "the missing turn"), StoredFormatScenario.POLICY, 2);
        assertThat(o.applied()).isEqualTo(2);
        for (ReadyHandoff r : o.released()) out.add(ContextEngine.render("acme", "s-golden", s, r, StoredFormatScenario.POLICY));
        for (ReadyHandoff r : s.offerTurn(Turn.of(66, "qwen", Role.USER, "now 70"), StoredFormatScenario.POLICY, 3).released()) {
            out.add(ContextEngine.render("acme", "s-golden", s, r, StoredFormatScenario.POLICY));
        }
        return out;
    }

    @Test
    void shouldDecodeTheV1GoldenBlobIntoAStateThatBehavesAsTheEvents() throws IOException {
        SessionState v1 = StateV1Reader.read(Files.readAllBytes(V1));
        assertThat(v1.heldCount()).isEqualTo(1);
        assertThat(v1.waitingHandoffs()).isEqualTo(1);
        assertThat(v1.rememberedHandoffIds()).isEqualTo(3);
        assertThat(v1.openLegacyCalls()).isEqualTo(2);
        assertThat(v1.compacted().count).isPositive();
        assertThat(behaviour(v1)).isEqualTo(behaviour(fresh()));
    }

    @Test
    void shouldMigrateTheV1GoldenBlobToEntriesAndKeepItsBehaviour() throws IOException {
        SessionState v1 = StateV1Reader.read(Files.readAllBytes(V1));
        StateStorage.InMemory stored = StateStorage.InMemory.of(v1);
        assertThat(StateFormat.versionOf(stored.skeleton)).isEqualTo(StateFormat.VERSION);
        assertThat(behaviour(stored.load())).isEqualTo(behaviour(fresh()));
    }

    @Test
    void shouldDecodeTheV2GoldenEntriesIntoAStateThatBehavesAsTheEvents() throws IOException {
        StateStorage.InMemory golden = read(Files.readAllBytes(V2));
        assertThat(behaviour(golden.load())).isEqualTo(behaviour(fresh()));
    }

    @Test
    void shouldDecodeTheV2GoldenEntriesWithoutAnInputRange() throws IOException {
        // version 2 kept the range in a store of its own: the processor takes it from there (SessionRepository)
        assertThat(read(Files.readAllBytes(V2)).load().inputRange()).isNull();
    }

    @Test
    void shouldReadV2EntriesBesideAV3Skeleton() throws IOException {
        // a session migrated in place: its skeleton is rewritten as v3 at once, its untouched entries stay v2
        StateStorage.InMemory golden = read(Files.readAllBytes(V2));
        SessionState loaded = golden.load();
        loaded.inputRange(RANGE);
        golden.skeleton = StateFormat.encodeSkeleton(loaded);
        assertThat(StateFormat.versionOf(golden.skeleton)).isEqualTo(3);
        List<Integer> entryVersions = new ArrayList<>();
        golden.scan((kind, number, value) -> entryVersions.add((int) value[0]));
        assertThat(entryVersions).containsOnly(2);
        SessionState mixed = golden.load();
        assertThat(mixed.inputRange()).isEqualTo(RANGE);
        assertThat(behaviour(mixed)).isEqualTo(behaviour(fresh()));
    }

    @Test
    void shouldDecodeTheV3GoldenEntriesIntoAStateThatBehavesAsTheEvents() throws IOException {
        SessionState golden = read(Files.readAllBytes(V3)).load();
        assertThat(golden.inputRange()).isEqualTo(RANGE);
        assertThat(behaviour(golden)).isEqualTo(behaviour(fresh()));
    }

    @Test
    void shouldRoundTripEveryShapeOfInputRange() {
        for (InputRange p : new InputRange[]{null, RANGE, new InputRange("t", 0, 0L, 0L, null, null),
                new InputRange(null, null, null, null, 1L, 9L), new InputRange("ü-topic", 7, -1L, Long.MAX_VALUE, null, null)}) {
            SessionState s = fresh();
            s.inputRange(p);
            assertThat(StateStorage.InMemory.roundTrip(s).inputRange()).isEqualTo(p);
        }
    }

    @Test
    void shouldKeepTheCallLedgerThroughItsOwnEntries() {
        StateStorage.InMemory stored = StateStorage.InMemory.of(fresh());
        assertThat(stored.count(EntryKind.LEDGER_SLOT)).as("one entry per group").isGreaterThan(1);
        assertThat(stored.count(EntryKind.LEDGER)).as("the counters are in the newest group's entry").isZero();
        List<Snapshot> expected = behaviourWithLedger(fresh());
        assertThat(expected.get(0).callLedger()).isNotNull();
        assertThat(behaviourWithLedger(stored.load())).isEqualTo(expected);
    }

    /**
     * A ledger as the release before LEDGER_SLOT stored it (every group under LEDGER and its ordinal, the counters in
     * LEDGER 0) reads, and goes on: its groups move to slots as they change, the counters entry goes once the newest
     * group carries them, and what is stored keeps loading to what memory renders.
     */
    @Test
    void shouldReadACallLedgerStoredBeforeSlotsAndMoveItToSlotsAsItGoesOn() {
        SessionState memory = fresh();
        StateStorage.InMemory current = StateStorage.InMemory.of(fresh());
        StateStorage.InMemory before = new StateStorage.InMemory();
        before.skeleton = current.skeleton;
        current.ids.entries().forEach(before.ids::put);
        current.scan((kind, number, value) -> {
            if (kind != EntryKind.LEDGER_SLOT) {
                before.put(kind, number, value);
                return;
            }
            CallGroup g = StateV3Reader.ledgerSlot(value, number);
            g.slot = 0;
            before.put(EntryKind.LEDGER, g.ordinal, StateFormat.encodeLedgerGroup(g));
        });
        before.put(EntryKind.LEDGER, CallLedger.COUNTERS, StateFormat.encodeLedgerCounters(memory.calls));
        assertThat(before.count(EntryKind.LEDGER_SLOT)).isZero();

        SessionState state = before.load();
        assertThat(state.callLedger()).hasSameSizeAs(memory.callLedger());
        assertThat(state.callLedgerCalls()).isEqualTo(memory.callLedgerCalls());
        // new calls with a bound of two: every group of the release before is pushed out, one by one
        var policy = StoredFormatScenario.POLICY.toBuilder().callLedgerEntries(2).build();
        for (int i = 0; i < 4; i++) {
            Turn t = new Turn(memory.nextSeq(), "qwen", Role.ASSISTANT, "calls " + i,
                    List.of(new ToolStep("c" + i, "grep", "{\"q\":" + i + "}", "found " + i, StepStatus.OK)),
                    List.of(), null, null, null);
            memory.offerTurn(t, policy, 10 + i);
            state.offerTurn(t, policy, 10 + i);
            before.store(state);
            SessionState back = before.load();
            // (where a group is stored and its counters as of its newest call are storage, not what the ledger says)
            assertThat(back.callLedger()).as("after call %d", i)
                    .usingRecursiveFieldByFieldElementComparatorIgnoringFields("slot", "nextOrdinalThen",
                            "droppedEntriesThen", "droppedCallsThen")
                    .isEqualTo(memory.callLedger());
            assertThat(List.of(back.callLedgerCalls(), back.callLedgerDroppedEntries(), back.callLedgerDroppedCalls()))
                    .isEqualTo(List.of(memory.callLedgerCalls(), memory.callLedgerDroppedEntries(),
                            memory.callLedgerDroppedCalls()));
        }
        assertThat(before.count(EntryKind.LEDGER)).as("no group nor counters left in the former layout").isZero();
        assertThat(before.count(EntryKind.LEDGER_SLOT)).isEqualTo(2);
        assertThat(before.load().callLedgerCalls()).isEqualTo(memory.callLedgerCalls());
    }

    @Test
    void shouldReadAStateStoredWithoutLedgerEntriesAsAnEmptyLedger() throws IOException {
        SessionState golden = read(Files.readAllBytes(V3)).load();
        assertThat(golden.callLedger()).isEmpty();
        assertThat(golden.callLedgerCalls()).isZero();
    }

    @Test
    void shouldWriteTheV3GoldenBytesUnchanged() throws IOException {
        if ("v3".equals(System.getProperty("baton.golden.write"))) {
            SessionState s = fresh();
            s.inputRange(RANGE);
            Files.write(V3, write(StateStorage.InMemory.of(s)));
        }
        // The layout, not what the engine keeps: the golden state decoded and written again gives the same bytes.
        // (What compaction keeps may change with the engine without a new version: the engine now keeps TOOL turns
        // until their step goes to the manifest, so the scenario applied afresh keeps one more turn than the golden.)
        byte[] now = write(StateStorage.InMemory.of(read(Files.readAllBytes(V3)).load()));
        assertThat(now).as("the v3 layout changed: give the new layout a new version, keep reading v3")
                .isEqualTo(Files.readAllBytes(V3));
    }

    @Test
    void shouldRefuseAnUnknownVersionLoudly() {
        byte[] skeleton = StateStorage.InMemory.of(fresh()).skeleton.clone();
        skeleton[0] = 9;
        assertThatThrownBy(() -> StateStorage.load(skeleton, new StateStorage.InMemory(), HandoffIdLog.inMemory()))
                .hasMessageContaining("version 9");
    }

    /** The golden container: skeleton, entries (kind, number, value), ids (ordinal, id). Test-only framing. */
    static byte[] write(StateStorage.InMemory m) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        out.writeInt(m.skeleton.length);
        out.write(m.skeleton);
        List<Object[]> entries = new ArrayList<>();
        m.scan((kind, number, value) -> entries.add(new Object[]{kind, number, value}));
        out.writeInt(entries.size());
        for (Object[] e : entries) {
            out.writeByte(((EntryKind) e[0]).code());
            out.writeLong((Long) e[1]);
            out.writeInt(((byte[]) e[2]).length);
            out.write((byte[]) e[2]);
        }
        out.writeInt(m.ids.entries().size());
        for (var e : m.ids.entries().entrySet()) {
            out.writeLong(e.getKey());
            out.writeUTF(e.getValue());
        }
        return b.toByteArray();
    }

    static StateStorage.InMemory read(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
        StateStorage.InMemory m = new StateStorage.InMemory();
        m.skeleton = in.readNBytes(in.readInt());
        for (int i = 0, n = in.readInt(); i < n; i++) {
            EntryKind kind = EntryKind.ofCode(in.readByte());
            long number = in.readLong();
            m.put(kind, number, in.readNBytes(in.readInt()));
        }
        for (int i = 0, n = in.readInt(); i < n; i++) m.ids.put(in.readLong(), in.readUTF());
        return m;
    }
}
