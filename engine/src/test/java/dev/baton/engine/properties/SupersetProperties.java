package dev.baton.engine.properties;

import dev.baton.engine.model.Target;
import dev.baton.engine.parity.ParityCheck;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionState;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R9 superset: under the same budgets, the receiver's rendering carries every text, tool name, argument and result
 * (after undoing R2) that the primary's own rendering shows; {@code parity} reports full coverage. Only sessions with
 * a primary (an agent that answered) have something to compare: the generators make only those, and {@link #check}
 * assumes it. A session without one is R9SupersetTest's example (zero of zero, the receiver as reference).
 */
class SupersetProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.NORMAL).filter(sc -> sc.primary() != null);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> adversarial() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.ADVERSARIAL).filter(sc -> sc.primary() != null);
    }

    @Property(tries = 150)
    void shouldShowTheReceiverEverythingThePrimarySees(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        Snapshot own = check(sc);
        // the superset matters most where the primary's own rendering was cut: make sure such sessions are generated
        Statistics.label("primary's rendering trimmed").collect(!own.truncations().isEmpty())
                .coverage(c -> c.check(true).percentage(p -> p >= 50));
    }

    @Property(tries = 60)
    void shouldShowTheReceiverEverythingThePrimarySeesWithAdversarialData(
            @ForAll("adversarial") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> recorded() {
        return SessionArbitraries.recordedSessions().filter(sc -> sc.primary() != null);
    }

    @Property(tries = 80)
    void shouldShowTheReceiverEverythingThePrimarySeesInRecordedSessions(
            @ForAll("recorded") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    /** Asserts R9 for every receiver of the scenario; returns the primary's own rendering. */
    static Snapshot check(SessionArbitraries.Scenario sc) {
        String primary = sc.primary();
        Assume.that(primary != null);
        SessionArbitraries.Run s = sc.run();
        SessionState state = s.state();
        Snapshot own = s.render(state, sc.handoff(primary, Target.LOCAL));
        List<Renderings.Item> reference = Renderings.items(own.messages());
        int referenceItems = ParityCheck.items(own.messages()).size();
        for (String receiver : receivers(sc, primary)) {
            Snapshot theirs = s.render(state, sc.handoff(receiver, Target.LOCAL));
            List<Renderings.Item> missing = Renderings.missing(reference, Renderings.items(theirs.messages()));
            assertThat(missing)
                    .as("items of %s's own rendering missing for %s\n%s\n=== primary's own\n%s", primary, receiver,
                            Renderings.dump(theirs), Renderings.dump(own))
                    .isEmpty();
            assertThat(theirs.parity().referenceAgent()).isEqualTo(primary);
            assertThat(theirs.parity().referenceItems()).as("parity's reference: the items of %s's own rendering", primary)
                    .isEqualTo(referenceItems);
            assertThat(theirs.parity().coveredItems()).as("parity %s", theirs.parity())
                    .isEqualTo(theirs.parity().referenceItems());
        }
        assertThat(own.parity().coveredItems()).isEqualTo(own.parity().referenceItems());
        return own;
    }

    static List<String> receivers(SessionArbitraries.Scenario sc, String primary) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String a : sc.agents()) if (!a.equals(primary)) out.add(a);
        out.add("newcomer");
        return out;
    }
}
