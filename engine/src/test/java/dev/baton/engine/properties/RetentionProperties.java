package dev.baton.engine.properties;

import dev.baton.engine.model.CompactJson;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.snapshot.Retention;
import dev.baton.engine.snapshot.Snapshot;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R3 retention, computed independently from the turns sent: trail-bearing turns (legacy calls count, and so does a
 * TOOL turn whose call is unknown, weighing its result's bytes), newest first;
 * the newest {@code expandedTrailTurns} are expanded, the following ones inlined while their cumulative trail bytes
 * (UTF-8 of the compact arguments plus the result; a legacy call's result is its TOOL turn's text) stay within
 * {@code inlineTrailBytes}; the rest are manifested, listed newest first up to the cap, the others counted. The plan
 * is the same whoever the receiver is.
 */
class RetentionProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> longSessions() {
        return SessionArbitraries.longSessions();
    }

    @Property(tries = 150)
    void shouldPlanRetentionNewestFirstWithinTheInlineBudget(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Property(tries = 30)
    void shouldPlanRetentionNewestFirstForLongSessions(@ForAll("longSessions") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> recorded() {
        return SessionArbitraries.recordedSessions();
    }

    @Property(tries = 100)
    void shouldPlanRetentionNewestFirstForRecordedSessions(@ForAll("recorded") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Property(tries = 100)
    void shouldAccountForEveryToolResultOnceInRecordedSessions(@ForAll("recorded") SessionArbitraries.Scenario sc) {
        checkAccounting(sc);
    }

    @Property(tries = 60)
    void shouldAccountForEveryToolResultOnce(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        checkAccounting(sc);
    }

    /**
     * Retention accounting: every TOOL turn with a result in the state is in exactly one of expanded,
     * inlined and the manifest, by its own seq when its call is unknown (an orphan result is a trail of its own) or
     * by its calling turn's seq (a legacy step belongs to its calling turn); a manifested turn the manifest does not
     * list is among the turns its footer counts (older than every listed one, inside the TRAIL_MANIFEST range). The
     * lists never name a seq twice, and they account for every trail-bearing turn. For every receiver.
     */
    static void checkAccounting(SessionArbitraries.Scenario sc) {
        RetentionAccounting model = RetentionAccounting.of(sc.turns());
        for (long seq : model.planned()) {
            Statistics.label("tool result").collect(model.trailBearing().contains(seq) && sc.turns().stream()
                    .anyMatch(t -> t.seq() == seq && t.role() == Role.TOOL) ? "orphan" : "answer");
        }
        SessionArbitraries.Run run = sc.run();
        var state = run.state();
        List<String> receivers = new ArrayList<>(SupersetProperties.receivers(sc, ""));
        if (sc.primary() != null) receivers.add(sc.primary());
        for (String receiver : receivers) {
            Snapshot snap = run.render(state, sc.handoff(receiver, sc.target()));
            model.check(snap.retention(), snap.truncations());
        }
    }

    static void check(SessionArbitraries.Scenario sc) {
        // Trail bytes per trail-bearing turn, as R3 defines them.
        Map<Long, Long> bytes = new LinkedHashMap<>();
        Map<String, Long> openCalls = new HashMap<>();
        for (Turn t : sc.turns()) {
            if (t.role() == Role.ASSISTANT && (!t.trail().isEmpty() || !t.toolCalls().isEmpty())) {
                long b = 0;
                for (ToolStep s : t.trail()) b += utf8(CompactJson.compactObject(s.arguments())) + utf8(s.result());
                for (ToolCall c : t.toolCalls()) {
                    b += utf8(CompactJson.compactObject(c.arguments()));
                    openCalls.put(c.callId(), t.seq());
                }
                bytes.put(t.seq(), b);
            } else if (t.role() == Role.TOOL) {
                Long caller = t.toolCallId() == null ? null : openCalls.remove(t.toolCallId());
                if (caller != null) bytes.merge(caller, utf8(t.text()), Long::sum);
                else bytes.put(t.seq(), utf8(t.text())); // an orphan result: a trail of its own, its result's bytes
            }
        }
        List<Long> newestFirst = new ArrayList<>(bytes.keySet());
        java.util.Collections.reverse(newestFirst);
        List<Long> expanded = new ArrayList<>();
        List<Long> inlined = new ArrayList<>();
        List<Long> manifested = new ArrayList<>();
        long cumulative = 0;
        boolean overflow = false;
        for (int i = 0; i < newestFirst.size(); i++) {
            long seq = newestFirst.get(i);
            if (i < sc.policy().expandedTrailTurns()) {
                expanded.add(seq);
                continue;
            }
            cumulative += bytes.get(seq);
            if (!overflow && cumulative <= sc.policy().inlineTrailBytes()) inlined.add(seq);
            else {
                overflow = true;
                manifested.add(seq);
            }
        }

        SessionArbitraries.Run run = sc.run();
        var state = run.state();
        String primary = sc.primary();
        Snapshot snap = run.render(state, sc.handoff());
        Retention r = snap.retention();
        Statistics.label("manifest").collect(!manifested.isEmpty());
        assertThat(r.expandedSeqs()).as("expanded").isEqualTo(expanded);
        assertThat(r.inlinedSeqs()).as("inlined").isEqualTo(inlined);
        assertThat(r.manifestSeqs()).as("listed manifest entries: the newest manifested ones")
                .isEqualTo(manifested.subList(0, r.manifestSeqs().size()));
        assertThat(r.manifestSeqs().size() + r.manifestUnlisted()).as("manifested turns").isEqualTo(manifested.size());
        long retainedBytes = 0;
        for (long s : expanded) retainedBytes += bytes.get(s);
        for (long s : inlined) retainedBytes += bytes.get(s);
        assertThat(r.trailBytes()).as("trail bytes of expanded and inlined trails").isEqualTo(retainedBytes);

        // The same plan whoever receives.
        for (String other : SupersetProperties.receivers(sc, primary == null ? "" : primary)) {
            assertThat(run.render(state, sc.handoff(other, sc.target())).retention()).isEqualTo(r);
        }
        if (primary != null) assertThat(run.render(state, sc.handoff(primary, sc.target())).retention()).isEqualTo(r);
    }

    static long utf8(String s) {
        return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
    }
}
