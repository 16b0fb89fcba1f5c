package dev.baton.engine.properties;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.EntryKind;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-turn layout is a faithful store of the state: writing after every event only the entries the event
 * changed (its journal) leaves exactly the entries and skeleton that writing the whole state would, whatever the
 * arrival order, duplicates, gaps, hand-offs and reloads in between (a reload is what a cache miss, a restart or a
 * restore from the changelog does); and the state loaded back renders what the state that never left memory renders.
 */
class IncrementalStorageProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }

    @Provide
    Arbitrary<Integer> ledgerBounds() {
        return Arbitraries.integers().between(0, 4);
    }

    @Property(tries = 150)
    void shouldStoreIncrementallyWhatAFullWriteStores(@ForAll("sessions") SessionArbitraries.Scenario sc,
                                                      @ForAll("seeds") long seed) {
        storeIncrementally(sc, seed);
    }

    /**
     * A call ledger kept full (a bound of a few groups): new groups take the stored places of the groups they push
     * out (LEDGER_SLOT entries), and the store still equals a full write, and loads back to what memory renders.
     */
    @Property(tries = 100)
    void shouldStoreAFullCallLedgerIncrementallyAsAFullWriteStoresIt(
            @ForAll("sessions") SessionArbitraries.Scenario sc, @ForAll("seeds") long seed,
            @ForAll("ledgerBounds") int bound) {
        storeIncrementally(sc.withPolicy(sc.policy().toBuilder().callLedgerEntries(bound).build()), seed);
    }

    private static void storeIncrementally(SessionArbitraries.Scenario sc, long seed) {
        Random r = new Random(seed);
        List<Turn> arrival = new ArrayList<>(sc.turns());
        for (Turn t : sc.turns()) if (r.nextInt(6) == 0) arrival.add(t);
        // a few local swaps: out-of-order arrival, held turns
        for (int i = 0; i + 1 < arrival.size(); i++) if (r.nextInt(4) == 0) Collections.swap(arrival, i, i + 1);

        SessionState memory = SessionState.empty();
        StateStorage.InMemory stored = new StateStorage.InMemory();
        SessionState state = SessionState.empty();
        stored.store(state);
        long now = 0;
        int handoffs = 0;
        for (Turn t : arrival) {
            now += 10;
            memory.offerTurn(t, sc.policy(), now);
            state.offerTurn(t, sc.policy(), now);
            if (r.nextInt(8) == 0) {
                Handoff h = new Handoff("h" + (handoffs++ % 3), null, "qwen", Target.LOCAL, null,
                        r.nextBoolean() ? null : t.seq() + r.nextInt(3), null);
                memory.offerHandoff(h, now, sc.policy(), now);
                state.offerHandoff(h, now, sc.policy(), now);
            }
            if (r.nextInt(10) == 0) {
                memory.onWallClock(now + sc.policy().gapWaitMillis(), sc.policy());
                state.onWallClock(now + sc.policy().gapWaitMillis(), sc.policy());
            }
            stored.store(state);
            assertThat(stored.dump()).as("incremental store equals a full write after seq %d", t.seq())
                    .isEqualTo(StateStorage.InMemory.of(state).dump());
            if (r.nextInt(5) == 0) state = stored.load();
        }
        Handoff h = sc.handoff();
        Snapshot expected = sc.run().render(memory, h);
        assertThat(sc.run().render(stored.load(), h)).isEqualTo(expected);
        assertThat(sc.run().render(state, h)).isEqualTo(expected);
        assertThat(stored.count(EntryKind.HELD)).isEqualTo(memory.heldCount());
    }
}
