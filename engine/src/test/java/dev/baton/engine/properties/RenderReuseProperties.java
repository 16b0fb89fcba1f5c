package dev.baton.engine.properties;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.PrefixPrint;
import dev.baton.engine.state.MissingRange;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.List;

/**
 * Everything a render reuses from the previous hand-offs of the session — segments and the order of the last layout
 * ({@link LayoutCache}), the messages and item counts kept with each segment — changes speed, never output: on a
 * session that grows between hand-offs, rendered for several receivers (one of them an agent of the session, whose
 * own text and steps are written for it natively while the others get them narrated) and under a trim step, every
 * snapshot emitted with the session's render cache equals a fresh render of the same state without one, and of the
 * state decoded again, string for string. Midway the cache is dropped (a session evicted from the decoded-state
 * cache), the state decoded again while the cache is kept (its entries then belong to turns that left), or both.
 */
class RenderReuseProperties {

    /** What happens to the session's caches before a hand-off. */
    enum Between { NOTHING, CACHE_DROPPED, STATE_DECODED, BOTH }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> longSessions() {
        return SessionArbitraries.longSessions();
    }

    @Provide
    Arbitrary<List<Integer>> steps() {
        return Arbitraries.integers().between(1, 400).list().ofMinSize(1).ofMaxSize(6);
    }

    @Provide
    Arbitrary<List<Between>> betweens() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.just(Between.NOTHING)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Between.CACHE_DROPPED)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Between.STATE_DECODED)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Between.BOTH))).list().ofSize(6);
    }

    @Property(tries = 150)
    void shouldEmitEveryHandoffAsAFreshRenderWhileTheSessionGrows(
            @ForAll("sessions") SessionArbitraries.Scenario sc, @ForAll("steps") List<Integer> steps,
            @ForAll("betweens") List<Between> betweens, @ForAll boolean trimInSteps) {
        check(sc, steps, betweens, trimInSteps);
    }

    @Property(tries = 15)
    void shouldEmitEveryHandoffOfALongSessionAsAFreshRender(
            @ForAll("longSessions") SessionArbitraries.Scenario sc, @ForAll("steps") List<Integer> steps,
            @ForAll("betweens") List<Between> betweens, @ForAll boolean trimInSteps) {
        check(sc, steps, betweens, trimInSteps);
    }

    static void check(SessionArbitraries.Scenario sc, List<Integer> steps, List<Between> betweens,
                      boolean trimInSteps) {
        Policy policy = trimInSteps ? sc.policy().toBuilder().trimStepChars(300).build() : sc.policy();
        List<Turn> turns = sc.turns();
        // An agent of the session, the scenario's receiver, one who wrote nothing, and a CLAUDE_CLI: native and narrated
        // messages of the same segments, in turn.
        List<Handoff> handoffs = List.of(sc.handoff(sc.agents().get(0), Target.LOCAL), sc.handoff(),
                sc.handoff("newcomer", Target.LOCAL), sc.handoff(sc.agents().get(0), Target.CLAUDE_CLI));
        SessionState state = SessionState.empty();
        LayoutCache layouts = new LayoutCache();
        int applied = 0;
        int round = 0;
        int rendered = 0;
        for (int step : steps) {
            int until = Math.min(turns.size(), applied + step);
            for (; applied < until; applied++) state.offerTurn(turns.get(applied), policy, 0L);
            state.settleAll(policy);
            Between between = betweens.get(round++ % betweens.size());
            if (between == Between.STATE_DECODED || between == Between.BOTH) state = StateStorage.InMemory.roundTrip(state);
            if (between == Between.CACHE_DROPPED || between == Between.BOTH) layouts = new LayoutCache();
            for (Handoff h : handoffs) {
                ReadyHandoff ready = ready(sc, state, h);
                // Fresh renders first (rendering never modifies the state): no cache, and the state decoded again.
                ContextEngine.Rendered cold = ContextEngine.renderWithPrint("acme", "s1", state, ready, policy,
                        WordPieceTokenizer.REGISTRY, LayoutCache.none(), null);
                SessionState decoded = StateStorage.InMemory.roundTrip(state);
                ContextEngine.Rendered decodedCold = ContextEngine.renderWithPrint("acme", "s1", decoded,
                        ready(sc, decoded, h), policy, WordPieceTokenizer.REGISTRY, LayoutCache.none(), null);
                ContextEngine.Rendered warm = ContextEngine.renderWithPrint("acme", "s1", state, ready, policy,
                        WordPieceTokenizer.REGISTRY, layouts, null);
                for (ContextEngine.Rendered expected : List.of(cold, decodedCold)) {
                    if (!warm.snapshot().equals(expected.snapshot())) {
                        throw new AssertionError("hand-off to " + h.toAgent() + " (" + h.target() + ") after "
                                + applied + " turns renders differently with the session's render cache:\n"
                                + Renderings.difference(expected.snapshot(), warm.snapshot()));
                    }
                    if (!samePrint(warm.print(), expected.print())) {
                        throw new AssertionError("hand-off to " + h.toAgent() + " after " + applied
                                + " turns remembers another print with the render cache");
                    }
                }
                // Emitted: the receiver's print is remembered, as the processor does.
                if (warm.print() != null) state.rememberPrint(h.toAgent(), warm.print());
                rendered++;
            }
        }
        Statistics.label("hand-offs per session").collect(rendered >= 8 ? ">= 8" : "< 8");
    }

    static boolean samePrint(PrefixPrint a, PrefixPrint b) {
        if (a == null || b == null) return a == b;
        if (a.anchorSeq() != b.anchorSeq() || a.anchorMarker() != b.anchorMarker() || a.length() != b.length()
                || a.endHash() != b.endHash() || a.blockCount() != b.blockCount()) {
            return false;
        }
        for (int i = 0; i < a.blockCount(); i++) if (a.block(i) != b.block(i)) return false;
        return true;
    }

    static ReadyHandoff ready(SessionArbitraries.Scenario sc, SessionState s, Handoff h) {
        MissingRange pending = sc.pending() <= 0 ? null : MissingRange.of(s.nextSeq(), s.nextSeq() + sc.pending() - 1);
        return new ReadyHandoff(h, 1_000L, pending);
    }
}
