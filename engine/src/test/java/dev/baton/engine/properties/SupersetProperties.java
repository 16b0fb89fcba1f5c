package dev.baton.engine.properties;

import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionState;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R9 superset: under the same budgets, the receiver's rendering carries every text, tool name, argument and result
 * (after undoing R2) that the primary's own rendering shows; {@code parity} reports full coverage.
 */
class SupersetProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> adversarial() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.ADVERSARIAL);
    }

    @Property(tries = 150)
    void shouldShowTheReceiverEverythingThePrimarySees(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Property(tries = 60)
    void shouldShowTheReceiverEverythingThePrimarySeesWithAdversarialData(
            @ForAll("adversarial") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> recorded() {
        return SessionArbitraries.recordedSessions();
    }

    @Property(tries = 80)
    void shouldShowTheReceiverEverythingThePrimarySeesInRecordedSessions(
            @ForAll("recorded") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    static void check(SessionArbitraries.Scenario sc) {
        String primary = sc.primary();
        if (primary == null) return;
        SessionArbitraries.Run s = sc.run();
        SessionState state = s.state();
        Snapshot own = s.render(state, sc.handoff(primary, Target.LOCAL));
        List<Renderings.Item> reference = Renderings.items(own.messages());
        for (String receiver : receivers(sc, primary)) {
            Snapshot theirs = s.render(state, sc.handoff(receiver, Target.LOCAL));
            List<Renderings.Item> missing = Renderings.missing(reference, Renderings.items(theirs.messages()));
            assertThat(missing)
                    .as("items of %s's own rendering missing for %s\n%s\n=== primary's own\n%s", primary, receiver,
                            Renderings.dump(theirs), Renderings.dump(own))
                    .isEmpty();
            assertThat(theirs.parity().referenceAgent()).isEqualTo(primary);
            assertThat(theirs.parity().coveredItems()).as("parity %s", theirs.parity())
                    .isEqualTo(theirs.parity().referenceItems());
        }
        assertThat(own.parity().coveredItems()).isEqualTo(own.parity().referenceItems());
    }

    static List<String> receivers(SessionArbitraries.Scenario sc, String primary) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String a : sc.agents()) if (!a.equals(primary)) out.add(a);
        out.add("newcomer");
        return out;
    }
}
