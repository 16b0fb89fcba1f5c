package dev.baton.engine.properties;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.Turn;
import dev.baton.engine.snapshot.Retention;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retention accounting (docs/rendering.md), computed independently from the turns applied (in seq order): the trail-bearing
 * turns R3 plans (ASSISTANT turns with a trail or legacy calls, and TOOL turns whose call is unknown: orphan results),
 * and for every TOOL turn the seq the plan knows its result by — its own when it is an orphan, its calling turn's
 * otherwise (a legacy step belongs to its calling turn). Within the open-call bound.
 *
 * @param trailBearing the seqs R3 plans
 * @param planned      for each TOOL turn, in order, the seq its result is planned under
 */
public record RetentionAccounting(TreeSet<Long> trailBearing, List<Long> planned) {

    public static RetentionAccounting of(List<Turn> turns) {
        Map<String, Long> open = new HashMap<>();
        TreeSet<Long> trailBearing = new TreeSet<>();
        List<Long> planned = new ArrayList<>();
        for (Turn t : turns) {
            if (t.role() == Role.ASSISTANT && (!t.trail().isEmpty() || !t.toolCalls().isEmpty())) {
                trailBearing.add(t.seq());
                for (ToolCall c : t.toolCalls()) if (c.callId() != null) open.put(c.callId(), t.seq());
            } else if (t.role() == Role.TOOL) {
                Long caller = t.toolCallId() == null ? null : open.remove(t.toolCallId());
                if (caller == null) trailBearing.add(t.seq());
                planned.add(caller == null ? t.seq() : caller);
            }
        }
        return new RetentionAccounting(trailBearing, planned);
    }

    /**
     * Every TOOL result in exactly one of expanded, inlined and the manifest's list, or among the turns the manifest
     * only counts (older than every listed one, inside the TRAIL_MANIFEST range); the lists name no seq twice and
     * account for every trail-bearing turn.
     */
    public void check(Retention r, List<Truncation> truncations) {
        List<Long> all = new ArrayList<>(r.expandedSeqs());
        all.addAll(r.inlinedSeqs());
        all.addAll(r.manifestSeqs());
        assertThat(all).as("no seq in two lists").doesNotHaveDuplicates();
        assertThat(all.size() + r.manifestUnlisted()).as("every trail-bearing turn accounted for")
                .isEqualTo(trailBearing.size());
        long oldestListed = r.manifestSeqs().isEmpty() ? Long.MAX_VALUE
                : r.manifestSeqs().get(r.manifestSeqs().size() - 1);
        Optional<Truncation> manifest = truncations.stream()
                .filter(t -> t.kind() == TruncationKind.TRAIL_MANIFEST && t.marker().startsWith("(tool activity of"))
                .findFirst();
        for (long seq : planned) {
            if (all.contains(seq)) continue;
            assertThat(r.manifestUnlisted()).as("seq %d is in no list: counted by the manifest", seq).isPositive();
            assertThat(seq).as("an unlisted seq is older than every listed one").isLessThan(oldestListed);
            manifest.ifPresent(m -> assertThat(seq).as("inside the manifest's range").isBetween(m.seqFrom(), m.seqTo()));
        }
    }
}
