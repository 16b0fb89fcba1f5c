package dev.baton.engine.properties;

import dev.baton.engine.Sessions;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.SessionStateCodec;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compaction is invisible: for any session and hand-off within the policy's limits, rendering from the bounded
 * (compacting) state equals rendering from a state that keeps the full history.
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
    }

    static void check(SessionArbitraries.Scenario sc) {
        Sessions s = sc.sessions();
        Handoff h = sc.handoff();
        SessionState compacted = s.state();
        SessionState full = s.fullState();
        Statistics.label("compacted").collect(compacted.compacted().count > 0);
        Statistics.label("manifest").collect(!compacted.trails().isEmpty() && compacted.trails().stream().anyMatch(e -> e.manifested));
        Snapshot expected = s.render(full, h);
        Snapshot actual = s.render(compacted, h);
        assertThat(actual).as("compacted state (%s turns compacted)\n%s\n=== from full history\n%s",
                compacted.compacted().count, Renderings.dump(actual), Renderings.dump(expected)).isEqualTo(expected);
        // What the state store holds renders the same too.
        assertThat(s.render(SessionStateCodec.decode(SessionStateCodec.encode(compacted)), h)).isEqualTo(expected);
    }
}
