package dev.baton.engine.properties;

import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionState;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Disabled;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;

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
    @Disabled("engine bug: parity under-reports when an OK result looks like an error (props-findings.md, R9; "
            + "EngineFindingsTest.shouldReportFullParityWhenAnOkResultLooksLikeAnError)")
    void shouldShowTheReceiverEverythingThePrimarySees(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc, true);
    }

    @Property(tries = 60)
    @Disabled("engine bug: parity under-reports when an OK result looks like an error (props-findings.md, R9)")
    void shouldShowTheReceiverEverythingThePrimarySeesWithAdversarialData(
            @ForAll("adversarial") SessionArbitraries.Scenario sc) {
        check(sc, true);
    }

    /** While the parity bug is open: the full superset check; parity only when no result looks like an outcome. */
    @Property(tries = 150)
    void shouldShowTheReceiverEverythingThePrimarySeesParityAside(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc, false);
    }

    /** While the parity bug is open: the full superset check; parity only when no result looks like an outcome. */
    @Property(tries = 60)
    void shouldShowTheReceiverEverythingThePrimarySeesParityAsideWithAdversarialData(
            @ForAll("adversarial") SessionArbitraries.Scenario sc) {
        check(sc, false);
    }

    /** A result text that the engine's parity check mistakes for an outcome line (the open R9 bug). */
    static boolean resultLooksLikeOutcome(SessionArbitraries.Scenario sc) {
        for (Turn t : sc.turns()) {
            List<String> results = new java.util.ArrayList<>();
            if (t.role() == Role.TOOL) results.add(t.text());
            for (ToolStep s : t.trail()) if (s.result() != null) results.add(s.result());
            for (String r : results) {
                if (r.startsWith("[error: ") || r.startsWith("[result") || r.startsWith("[no result")) return true;
            }
        }
        return false;
    }

    static void check(SessionArbitraries.Scenario sc, boolean parityAlways) {
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
            if (!parityAlways && resultLooksLikeOutcome(sc)) continue;
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
