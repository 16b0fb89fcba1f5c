package dev.baton.engine.properties;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compaction is invisible: for any session and hand-off within the policy's limits, rendering from the bounded
 * (compacting) state equals rendering from a state that keeps the full history ({@code SessionState.uncompacted()}).
 */
class CompactionIsInvisibleProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> longSessions() {
        return SessionArbitraries.longSessions();
    }

    @Property(tries = 100)
    void shouldRenderTheSameFromCompactedAndFullState(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Property(tries = 40)
    void shouldRenderTheSameFromCompactedAndFullStateForLongSessions(
            @ForAll("longSessions") SessionArbitraries.Scenario sc) {
        check(sc);
        // The long sessions must really exercise compaction.
        Statistics.label("compacted").coverage(c -> c.check(true).percentage(p -> p >= 30));
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> recorded() {
        return SessionArbitraries.recordedSessions();
    }

    @Property(tries = 80)
    void shouldRenderTheSameFromCompactedAndFullStateForRecordedSessions(
            @ForAll("recorded") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    static void check(SessionArbitraries.Scenario sc) {
        SessionArbitraries.Run s = sc.run();
        Handoff h = sc.handoff();
        SessionState compacted = s.state();
        SessionState full = s.fullState();
        Statistics.label("compacted").collect(compacted.compacted().count > 0);
        Statistics.label("manifest").collect(compacted.trails().stream().anyMatch(e -> e.manifested));
        Snapshot expected = s.render(full, h);
        Snapshot actual = s.render(compacted, h);
        if (!actual.equals(expected)) {
            throw new AssertionError("compacted state (" + compacted.compacted().count + " turns compacted) renders "
                    + "differently from the full history:\n" + Renderings.difference(expected, actual));
        }
        // What the state store holds renders the same too.
        Snapshot decoded = s.render(StateStorage.InMemory.roundTrip(compacted), h);
        assertThat(decoded).isEqualTo(actual);
    }
}
