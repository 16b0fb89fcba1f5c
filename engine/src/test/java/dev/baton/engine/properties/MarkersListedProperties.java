package dev.baton.engine.properties;

import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R8 honest markers: every marker line visible where Baton's lines can be told from data (system messages and the
 * brick, whose quoted data is escaped by R2) is listed in {@code truncations}; every listed marker is visible in the
 * messages or the brick.
 */
class MarkersListedProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> adversarial() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.ADVERSARIAL);
    }

    @Property(tries = 150)
    void shouldListEveryVisibleMarkerAndShowEveryListedOne(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Property(tries = 60)
    void shouldListEveryVisibleMarkerWithAdversarialData(@ForAll("adversarial") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> recorded() {
        return SessionArbitraries.recordedSessions();
    }

    @Property(tries = 80)
    void shouldListEveryVisibleMarkerOfRecordedSessions(@ForAll("recorded") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    static void check(SessionArbitraries.Scenario sc) {
        Snapshot snap = sc.run().render(sc.handoff());
        Set<String> listed = new HashSet<>();
        for (Truncation t : snap.truncations()) listed.add(t.marker());
        for (Truncation t : snap.truncations()) Statistics.label("kind").collect(t.kind());

        // §3: a range of turns spans every seq its count includes; a one-seq range reads "seq N" (R5).
        for (Truncation t : snap.truncations()) {
            if (t.marker().matches(".*\\bseq (\\d+)–\\1\\b.*")) {
                throw new AssertionError("a one-seq range written as a range: " + t.marker());
            }
            boolean turns = switch (t.kind()) {
                case TURNS_MISSING, TRAIL_MANIFEST, TRANSCRIPT_MIDDLE_SUMMARIZED, TRANSCRIPT_MIDDLE_DROPPED,
                     BRICK_ACTIVITY_OMITTED -> true;
                default -> false;
            };
            if (!turns || t.seqFrom() == null) continue;
            assertThat(t.seqTo() - t.seqFrom() + 1).as("%s spans its count\n%s", t, Renderings.dump(snap))
                    .isGreaterThanOrEqualTo(t.count());
        }

        // Forward: visible marker lines are listed.
        List<String> visible = new ArrayList<>();
        for (Message m : snap.messages()) {
            if (!m.role().equals("system")) continue;
            visible.addAll(markerLines(m.content()));
        }
        visible.addAll(markerLines(snap.brick()));
        for (String line : visible) {
            assertThat(listed).as("marker line %s is not listed\n%s", line, Renderings.dump(snap)).contains(line);
        }

        // Backward: listed markers are visible (a marker of cut arguments sits inside the JSON, on the call line).
        for (Truncation t : snap.truncations()) {
            boolean shown = snap.brick().contains(t.marker());
            for (Message m : snap.messages()) {
                shown |= m.content().contains(t.marker());
                for (var c : m.toolCalls()) shown |= c.arguments().contains(t.marker());
            }
            assertThat(shown).as("listed %s is not visible\n%s", t, Renderings.dump(snap)).isTrue();
        }
        assertThat(snap.truncations()).as("entries are listed once").doesNotHaveDuplicates();
        if (!listed.isEmpty()) Statistics.label("has markers").collect(true);
    }

    /**
     * Marker lines of a system message or the brick: lines starting with {@code (} or {@code …}, and the cleared
     * result line. The lines that follow a manifest header (the manifest's entries and its closing count) and a
     * digest header (its lines) belong to that one marker.
     */
    static List<String> markerLines(String content) {
        List<String> out = new ArrayList<>();
        boolean insideListing = false;
        for (String line : Renderings.lines(content)) {
            boolean manifestFooter = line.matches("\\(\\d+ older trail-bearing turns? not listed\\)");
            if (insideListing && (manifestFooter || line.startsWith("[seq "))) continue;
            insideListing = false;
            if (line.startsWith("(tool activity of ") || line.startsWith("(earlier conversation summarized")) {
                insideListing = true;
            }
            if (line.startsWith("(") || line.startsWith("…") || line.equals(Renderings.CLEARED)) out.add(line);
        }
        return out;
    }

    static boolean isKind(Snapshot s, TruncationKind k) {
        for (Truncation t : s.truncations()) if (t.kind() == k) return true;
        return false;
    }
}
