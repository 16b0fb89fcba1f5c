package dev.baton.engine.properties;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.SessionStateCodec;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Disabled;

import java.util.ArrayList;
import java.util.List;

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
    @Disabled("engine bug: the brick's omitted range starts after an empty turn compaction dropped (props-findings.md; "
            + "EngineFindingsTest.shouldStartTheBricksOmittedRangeAtTheOldestTurnAfterCompaction)")
    void shouldRenderTheSameFromCompactedAndFullState(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc, true);
    }

    @Property(tries = 40)
    @Disabled("engine bug: the brick's omitted range starts after an empty turn compaction dropped (props-findings.md)")
    void shouldRenderTheSameFromCompactedAndFullStateForLongSessions(
            @ForAll("longSessions") SessionArbitraries.Scenario sc) {
        check(sc, true);
    }

    /** While the brick bug is open: everything but the brick and the markers only it shows must be equal. */
    @Property(tries = 100)
    void shouldRenderTheSameTranscriptFromCompactedAndFullState(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc, false);
    }

    /** While the brick bug is open: everything but the brick and the markers only it shows must be equal. */
    @Property(tries = 40)
    void shouldRenderTheSameTranscriptFromCompactedAndFullStateForLongSessions(
            @ForAll("longSessions") SessionArbitraries.Scenario sc) {
        check(sc, false);
        // The long sessions must really exercise compaction.
        Statistics.label("compacted").coverage(c -> c.check(true).percentage(p -> p >= 30));
    }

    static void check(SessionArbitraries.Scenario sc, boolean withBrick) {
        SessionArbitraries.Run s = sc.run();
        Handoff h = sc.handoff();
        SessionState compacted = s.state();
        SessionState full = s.fullState();
        Statistics.label("compacted").collect(compacted.compacted().count > 0);
        Statistics.label("manifest").collect(compacted.trails().stream().anyMatch(e -> e.manifested));
        Snapshot expected = s.render(full, h);
        Snapshot actual = s.render(compacted, h);
        if (!withBrick) {
            expected = withoutBrick(expected);
            actual = withoutBrick(actual);
        }
        if (!actual.equals(expected)) {
            throw new AssertionError("compacted state (" + compacted.compacted().count + " turns compacted) renders "
                    + "differently from the full history:\n" + Renderings.difference(expected, actual));
        }
        // What the state store holds renders the same too.
        Snapshot decoded = s.render(SessionStateCodec.decode(SessionStateCodec.encode(compacted)), h);
        assertThat(withBrick ? decoded : withoutBrick(decoded)).isEqualTo(actual);
    }

    /** The snapshot without brick, brick size and the markers only the brick shows. */
    static Snapshot withoutBrick(Snapshot s) {
        List<Truncation> ts = new ArrayList<>();
        for (Truncation t : s.truncations()) {
            boolean inTranscript = false;
            for (var m : s.messages()) {
                inTranscript |= m.content().contains(t.marker());
                for (var c : m.toolCalls()) inTranscript |= c.arguments().contains(t.marker());
            }
            if (inTranscript) ts.add(t);
        }
        return new Snapshot(s.snapshotId(), s.tenantId(), s.sessionId(), s.handoffId(), s.fromAgent(), s.toAgent(),
                s.target(), s.asOfSeq(), s.turnCount(), s.occurredAtMillis(), s.framing(), "", s.messages(),
                s.retention(), ts, new dev.baton.engine.snapshot.Stats(s.stats().messageChars(), 0, 0), s.parity());
    }
}
