package dev.baton.engine.properties;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.MissingRange;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import dev.baton.engine.state.StoredTurn;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The render cache ({@link LayoutCache}, held beside the state) is invisible: a state rendered again and again, with turns applied
 * between its hand-offs, under another policy and for other receivers in between, renders every hand-off exactly as
 * a fresh state that received the same events and was never rendered.
 */
class LayoutMemoProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> longSessions() {
        return SessionArbitraries.longSessions();
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 3_000).list().ofMinSize(1).ofMaxSize(5);
    }

    @Provide
    Arbitrary<Policy> otherPolicies() {
        return SessionArbitraries.policy(2_000, 400_000);
    }

    @Property(tries = 100)
    void shouldRenderEveryHandoffAsAFreshState(@ForAll("sessions") SessionArbitraries.Scenario sc,
                                               @ForAll("cuts") List<Integer> cuts,
                                               @ForAll("otherPolicies") Policy other) {
        check(sc, cuts, other);
    }

    @Property(tries = 20)
    void shouldRenderEveryHandoffOfALongSessionAsAFreshState(@ForAll("longSessions") SessionArbitraries.Scenario sc,
                                                             @ForAll("cuts") List<Integer> cuts,
                                                             @ForAll("otherPolicies") Policy other) {
        check(sc, cuts, other);
        // The memo must really be reused: some turn kept its memo across a hand-off.
        Statistics.label("memo reused").coverage(c -> c.check(true).percentage(p -> p >= 30));
    }

    static void check(SessionArbitraries.Scenario sc, List<Integer> cutPoints, Policy other) {
        List<Turn> turns = sc.turns();
        TreeSet<Integer> cuts = new TreeSet<>();
        for (int c : cutPoints) cuts.add(turns.isEmpty() ? 0 : c % (turns.size() + 1));
        cuts.add(turns.size());
        List<Handoff> handoffs = List.of(sc.handoff(), sc.handoff(sc.agents().get(0), Target.LOCAL),
                sc.handoff("newcomer", Target.LOCAL));

        SessionState memoized = SessionState.empty();
        LayoutCache layouts = new LayoutCache();
        int applied = 0;
        boolean reused = false;
        for (int cut : cuts) {
            for (; applied < cut; applied++) memoized.offerTurn(turns.get(applied), sc.policy(), 0L);
            memoized.settleAll(sc.policy());
            List<Object> before = memos(memoized, layouts);
            // Never rendered: each expected snapshot is rendered from its own copy of it (the memo is not stored).
            SessionState fresh = fresh(sc, cuts.headSet(cut, true));
            List<Snapshot> expectedAll = new ArrayList<>();
            // The same hand-off twice on the same state, others and another policy between them.
            for (int round = 0; round < 2; round++) {
                int k = 0;
                for (Policy p : List.of(sc.policy(), other)) {
                    for (Handoff h : handoffs) {
                        Snapshot actual = render(sc, memoized, h, p, layouts);
                        if (round == 0) expectedAll.add(render(sc, StateStorage.InMemory.roundTrip(fresh), h, p,
                                LayoutCache.none()));
                        Snapshot expected = expectedAll.get(k++);
                        if (!actual.equals(expected)) {
                            throw new AssertionError("hand-off after turn " + cut + " (round " + round + ", policy "
                                    + (p == other ? "other" : "scenario's") + ") renders differently with the render "
                                    + "cache:\n" + Renderings.difference(expected, actual));
                        }
                    }
                }
            }
            List<Object> after = memos(memoized, layouts);
            for (int i = 0; i < Math.min(before.size(), after.size()); i++) {
                if (before.get(i) != null && before.get(i) == after.get(i)) reused = true;
            }
        }
        Statistics.label("memo reused").collect(reused);
    }

    /** A state that received the same events (turns, and gaps settled at the same points), never rendered. */
    static SessionState fresh(SessionArbitraries.Scenario sc, java.util.SortedSet<Integer> cuts) {
        SessionState s = SessionState.empty();
        int applied = 0;
        for (int cut : cuts) {
            for (; applied < cut; applied++) s.offerTurn(sc.turns().get(applied), sc.policy(), 0L);
            s.settleAll(sc.policy());
        }
        return s;
    }

    static Snapshot render(SessionArbitraries.Scenario sc, SessionState s, Handoff h, Policy p, LayoutCache layouts) {
        MissingRange pending = sc.pending() <= 0 ? null : MissingRange.of(s.nextSeq(), s.nextSeq() + sc.pending() - 1);
        return ContextEngine.render("acme", "s1", s, new ReadyHandoff(h, 1_000L, pending), p,
                WordPieceTokenizer.REGISTRY, layouts);
    }

    static List<Object> memos(SessionState s, LayoutCache layouts) {
        List<Object> out = new ArrayList<>();
        for (StoredTurn t : s.body()) out.add(layouts.layoutOf(t));
        return out;
    }
}
