package dev.baton.engine.layout;

import dev.baton.engine.markers.Markers;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.narration.Datum;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.retention.RetentionPlan;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.MissingRange;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StoredTurn;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Layout: turns become segments in seq order. A USER turn is a user message, a SYSTEM turn a system message, an
 * ASSISTANT turn its retained trail (R3) and then its text. A legacy call answered by a later TOOL turn belongs to
 * that TOOL turn for trimming and moves back to its calling turn when that turn is kept (R1: "a legacy step renders
 * at its calling turn while that turn is retained, otherwise at the TOOL turn that answers it"); when the calling
 * turn's trail is in the manifest, the step is rendered nowhere (R3). A call never answered stays on its calling turn
 * with {@code [no result recorded]}; a TOOL turn whose call is unknown (an orphan result, a trail of its own for R3)
 * is narrated with tool {@code unknown} and arguments {@code {}} while retained. Missing ranges become marker
 * segments where they are.
 */
public final class SegmentBuilder {
    private SegmentBuilder() {
    }

    /** Head and body segments of a session. */
    public record Layout(List<Segment> head, List<Segment> body) {
    }

    /** The layout of {@code state}, laid out now (no cache). */
    public static Layout build(SessionState state, RetentionPlan plan, MissingRange pending) {
        return build(state, plan, pending, LayoutCache.none());
    }

    /** The layout of {@code state}, with unchanged turns' segments taken from {@code layouts} (see {@link LayoutCache}). */
    public static Layout build(SessionState state, RetentionPlan plan, MissingRange pending, LayoutCache layouts) {
        List<Segment> head = new ArrayList<>();
        Long headAssistantSeq = state.headAssistant() == null ? null : state.headAssistant().seq;
        if (state.headUser() != null) head.addAll(segmentsOf(state.headUser(), plan, headAssistantSeq, layouts));
        if (state.headAssistant() != null) head.addAll(segmentsOf(state.headAssistant(), plan, headAssistantSeq, layouts));
        head.sort(Comparator.comparingLong(Segment::order));

        List<StoredTurn> turns = state.body();
        List<Segment> body = new ArrayList<>(turns.size() + turns.size() / 2 + 4);
        LayoutCache.Walk walk = layouts.walk(turns.size());
        if (walk == null) {
            for (StoredTurn t : turns) body.addAll(turnSegments(t, plan, headAssistantSeq));
        } else {
            for (StoredTurn t : turns) body.addAll(segmentsOf(t, plan, headAssistantSeq, layouts, walk));
            walk.finish();
        }
        for (MissingRange r : state.missingRanges()) {
            body.add(missingMarker(r, Markers.turnsMissing(r.count(), r.from(), r.to())));
        }
        MissingRange older = state.olderMissing();
        if (older != null) {
            body.add(missingMarker(older, Markers.olderTurnsMissing(older.count(), older.from(), older.to())));
        }
        if (pending != null) {
            body.add(missingMarker(pending, Markers.turnsMissing(pending.count(), pending.from(), pending.to())));
        }
        // Stable sort: a turn's own segments keep their order (trail, then text). Without markers the turns'
        // segments are already in order (body turns are in seq order and a turn's segments share its position).
        if (!ordered(body)) body.sort(Comparator.comparingLong(Segment::order));
        return new Layout(head, body);
    }

    private static boolean ordered(List<Segment> segments) {
        for (int i = 1; i < segments.size(); i++) {
            if (segments.get(i - 1).order() > segments.get(i).order()) return false;
        }
        return true;
    }

    public static Segment missingMarker(MissingRange r, String text) {
        return Segment.marker(r.from(), text,
                new Truncation(TruncationKind.TURNS_MISSING, r.from(), r.to(), r.count(), text));
    }

    /**
     * {@link #turnSegments}, from {@code layouts} when the turn's kept layout is valid for this plan and head (see
     * {@link TurnLayout}); otherwise laid out and kept there. The list is immutable.
     */
    public static List<Segment> segmentsOf(StoredTurn t, RetentionPlan plan, Long headAssistantSeq,
                                           LayoutCache layouts) {
        if (!layouts.keeps()) return turnSegments(t, plan, headAssistantSeq);
        return segmentsOf(t, plan, headAssistantSeq, layouts, null);
    }

    /** {@link #segmentsOf(StoredTurn, RetentionPlan, Long, LayoutCache)} for a body turn of a layout walk (or none). */
    private static List<Segment> segmentsOf(StoredTurn t, RetentionPlan plan, Long headAssistantSeq,
                                            LayoutCache layouts, LayoutCache.Walk walk) {
        boolean retained;
        boolean head;
        int answered = 0;
        switch (t.role) {
            case ASSISTANT -> {
                retained = t.trailBearing && plan.isRetained(t.seq);
                head = headAssistantSeq != null && headAssistantSeq == t.seq;
                if (t.calls != null) for (StoredTurn.LegacyCall c : t.calls) if (c.answeredBySeq >= 0) answered++;
            }
            case TOOL -> {
                StoredTurn.ResolvedCall a = t.answers;
                retained = a != null ? plan.isRetained(a.callingSeq()) : t.trailBearing && plan.isRetained(t.seq);
                head = a != null && headAssistantSeq != null && headAssistantSeq == a.callingSeq();
            }
            default -> {
                retained = false;
                head = false;
            }
        }
        int changes = t.changes();
        TurnLayout kept = walk != null ? walk.find(t) : layouts.get(t);
        if (kept == null || !kept.matches(retained, head, t.trail, t.calls, answered, changes)) {
            kept = new TurnLayout(retained, head, t.trail, t.calls, answered, changes,
                    turnSegments(t, plan, headAssistantSeq));
            layouts.put(t, kept);
        }
        if (walk != null) walk.keep(t, kept);
        return kept.segments();
    }

    /** The segments of one stored turn, laid out now (see {@link #segmentsOf} for the memoized form). */
    public static List<Segment> turnSegments(StoredTurn t, RetentionPlan plan, Long headAssistantSeq) {
        List<Segment> out = new ArrayList<>();
        switch (t.role) {
            case USER -> out.add(Segment.user(t.seq, t.agent, t.text));
            case SYSTEM -> out.add(Segment.system(t.seq, t.agent, t.text));
            case ASSISTANT -> {
                boolean retained = t.trailBearing && plan.isRetained(t.seq);
                if (retained && t.trail != null) {
                    for (ToolStep s : t.trail) out.add(Segment.step(t.seq, t.seq, fromTrail(t, s)));
                }
                if (retained && t.calls != null) {
                    boolean isHead = headAssistantSeq != null && headAssistantSeq == t.seq;
                    for (StoredTurn.LegacyCall c : t.calls) {
                        if (c.answeredBySeq < 0) {
                            out.add(Segment.step(t.seq, t.seq, new StepView(t.seq, t.agent, c.callId, c.tool,
                                    c.arguments, StepView.Outcome.NO_RESULT, Datum.of(""))));
                        } else if (isHead) {
                            // The head is always kept: the step stays with its calling turn.
                            out.add(Segment.step(t.seq, t.seq, new StepView(t.seq, t.agent, c.callId, c.tool,
                                    c.arguments, StepView.Outcome.RESULT, Datum.of(c.result))));
                        }
                        // Answered calls of other turns are carried by their TOOL turn (below).
                    }
                }
                if (!t.text.isEmpty()) out.add(Segment.assistantText(t.seq, t.agent, t.text));
            }
            case TOOL -> {
                StoredTurn.ResolvedCall a = t.answers;
                if (a == null) {
                    // An orphan result is a trail of its own (R3): shown while retained, else in the manifest. (A
                    // turn stored before orphans were planned is not trail-bearing: it always shows.)
                    if (t.trailBearing && !plan.isRetained(t.seq)) break;
                    out.add(Segment.step(t.seq, t.seq, new StepView(t.seq, t.agent, null, Narration.UNKNOWN_TOOL,
                            Narration.UNKNOWN_ARGUMENTS, StepView.Outcome.RESULT, Datum.of(t.text))));
                } else {
                    // R3: a legacy step belongs to its calling turn. When that turn's trail is in the manifest, the
                    // manifest lists the step and it is rendered nowhere else, not here either.
                    if (!plan.isRetained(a.callingSeq())) break;
                    boolean callerIsHead = headAssistantSeq != null && headAssistantSeq == a.callingSeq();
                    if (callerIsHead) break;
                    out.add(Segment.step(t.seq, a.callingSeq(), new StepView(t.seq, a.callingAgent(), a.callId(), a.tool(),
                            a.arguments(), StepView.Outcome.RESULT, Datum.of(t.text))));
                }
            }
        }
        return out;
    }

    private static StepView fromTrail(StoredTurn t, ToolStep s) {
        StepView.Outcome o = switch (s.status()) {
            case OK -> s.result() == null ? StepView.Outcome.NO_RESULT : StepView.Outcome.RESULT;
            case ERROR -> StepView.Outcome.ERROR;
            case CLEARED -> StepView.Outcome.CLEARED;
        };
        return new StepView(t.seq, t.agent, s.callId(), s.tool(), s.arguments(), o,
                Datum.of(s.result() == null ? "" : s.result()));
    }
}
