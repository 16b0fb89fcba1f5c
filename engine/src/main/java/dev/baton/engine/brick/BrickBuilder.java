package dev.baton.engine.brick;

import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.layout.Segment;
import dev.baton.engine.layout.SegmentBuilder;
import dev.baton.engine.markers.Markers;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.retention.RetentionPlan;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.MissingRange;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StoredTurn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * R6 — the brick: an orientation TL;DR that says where to look, within the brick budget (LOCAL 3,000 characters,
 * CLAUDE_CLI 12,000). Lines, in order:
 * <ol>
 *   <li>the session line: tenant, session, turns, at most 8 agents;</li>
 *   <li>{@code [task]} the first 500 characters of the first USER turn, and {@code [brief]} the first 1,000 of the
 *       brief — excerpts ending with {@code …} when cut, not listed in truncations, shortened first (brief, then task)
 *       when the fixed parts alone do not fit;</li>
 *   <li>every TURNS_MISSING marker;</li>
 *   <li>the newest activity, newest last, with tool calls and results: results over 1,500 characters keep 1,500 and
 *       are followed by {@code … (truncated — full result in the session history)}; turns that do not fit are replaced
 *       by {@code (earlier activity omitted — N turns)}; a single turn that alone exceeds the room keeps a head and a
 *       tail of itself around a marker line.</li>
 * </ol>
 * All quoted data is escaped (R2).
 */
public final class BrickBuilder {
    private BrickBuilder() {
    }

    public record Brick(String text, List<Truncation> truncations) {
    }

    /**
     * Brick budgets below this are raised to it (like the transcript's 2,000): the session line and the missing-range
     * markers must fit. Baton's reading of R6 for tenant policies with tiny bricks.
     */
    public static final int MIN_BUDGET_CHARS = Policy.MIN_BRICK_BUDGET_CHARS;

    /** Room the brief and task give way to, so the newest activity always shows (trimmed if it must). */
    static final int MIN_ACTIVITY_CHARS = 200;

    /** One turn's brick lines and the markers they show. */
    record Entry(long seq, String text, List<Truncation> notes) {
    }

    public static Brick build(String tenantId, String sessionId, SessionState state, RetentionPlan plan,
                              Handoff handoff, MissingRange pending, Policy policy, LayoutCache layouts) {
        return build(tenantId, sessionId, state, plan, handoff, pending, policy, layouts, null);
    }

    /**
     * {@link #build(String, String, SessionState, RetentionPlan, Handoff, MissingRange, Policy, LayoutCache)} with the
     * outcome of the session's previous escalation as reported by its receiver (a marker line written by Baton, e.g.
     * {@code [previous hand-off: escalated to claude-opus at seq 41: failed — handed back]}), shown after the session
     * line; null: no line, the brick is exactly what it is without receipts.
     */
    public static Brick build(String tenantId, String sessionId, SessionState state, RetentionPlan plan,
                              Handoff handoff, MissingRange pending, Policy policy, LayoutCache layouts,
                              String previousOutcome) {
        int budget = Math.max(MIN_BUDGET_CHARS,
                handoff.target() == Target.CLAUDE_CLI ? policy.brickBudgetCliChars() : policy.brickBudgetLocalChars());
        List<Truncation> notes = new ArrayList<>();

        String session = sessionLine(tenantId, sessionId, state, policy.brickMaxAgents());
        // part of the fixed head, so that the budget and the shortening below count it
        if (previousOutcome != null) session = session + '\n' + previousOutcome;
        List<String> missingLines = new ArrayList<>();
        List<Truncation> missingNotes = new ArrayList<>();
        for (Segment m : missingMarkers(state, pending)) {
            missingLines.add(m.marker());
            missingNotes.addAll(m.notes());
        }
        String taskText = state.headUser() == null ? null : state.headUser().text;
        String briefText = handoff.brief();
        int taskChars = taskText == null ? 0 : Math.min(policy.brickTaskChars(), taskText.length());
        int briefChars = briefText == null ? 0 : Math.min(policy.brickBriefChars(), briefText.length());
        // With side-effecting tools named, their calls are listed as done (nothing is added otherwise).
        DoneCalls.Listed done = DoneCalls.list(state, policy, budget);
        String omittedReserve = Markers.brickActivityOmitted(Math.max(state.turnCount(), 1));
        // With turns to show, the fixed parts leave room for the omitted line and some of the newest activity.
        int fixedBudget = budget - (state.turnCount() > 0 ? omittedReserve.length() + 1 + MIN_ACTIVITY_CHARS : 0);

        // When the fixed parts alone do not fit, shorten the brief first, then the task.
        String fixed = fixedPart(session, taskText, taskChars, briefText, briefChars, missingLines, done.text());
        while (fixed.length() > fixedBudget && briefText != null && briefChars > 0) {
            briefChars = Math.max(0, briefChars - Math.max(1, fixed.length() - fixedBudget));
            fixed = fixedPart(session, taskText, taskChars, briefText, briefChars, missingLines, done.text());
        }
        while (fixed.length() > fixedBudget && taskText != null && taskChars > 0) {
            taskChars = Math.max(0, taskChars - Math.max(1, fixed.length() - fixedBudget));
            fixed = fixedPart(session, taskText, taskChars, briefText, briefChars, missingLines, done.text());
        }
        if (fixed.length() > fixedBudget && missingLines.size() > 1) {
            // Still too long (a small tenant brick with many gaps): one line for all missing ranges.
            long count = 0;
            long from = Long.MAX_VALUE;
            long to = -1;
            for (Truncation t : missingNotes) {
                count += t.count();
                from = Math.min(from, t.seqFrom());
                to = Math.max(to, t.seqTo());
            }
            String line = Markers.turnsMissingInRanges(count, missingLines.size(), from, to);
            missingLines = List.of(line);
            missingNotes = List.of(new Truncation(TruncationKind.TURNS_MISSING, from, to, count, line));
            fixed = fixedPart(session, taskText, taskChars, briefText, briefChars, missingLines, done.text());
        }
        notes.addAll(missingNotes);
        notes.addAll(done.truncations());

        // Activity, newest first, while it fits.
        List<Entry> entries = entries(state, plan, policy, layouts);
        int room = budget - fixed.length() - 1;
        List<Entry> shown = new ArrayList<>();
        int used = 0;
        long oldestShownSeq = Long.MAX_VALUE;
        // Entries cover every turn in state, newest first: the applied turns older than entry i are all the others.
        long omitted = state.turnCount();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            long olderThanThis = state.turnCount() - (i + 1);
            int reserve = olderThanThis > 0 ? omittedReserve.length() + 1 : 0;
            int need = e.text.isEmpty() ? 0 : e.text.length() + (shown.isEmpty() ? 0 : 1);
            if (used + need + reserve <= room) {
                if (!e.text.isEmpty()) shown.add(e);
                used += need;
                oldestShownSeq = e.seq;
                omitted = olderThanThis;
                continue;
            }
            if (shown.isEmpty()) {
                Entry cut = trimEntry(e, room - reserve);
                if (!cut.text.isEmpty()) {
                    shown.add(cut);
                    oldestShownSeq = e.seq;
                    omitted = olderThanThis;
                }
            }
            break;
        }

        StringBuilder sb = new StringBuilder(fixed);
        if (omitted > 0) {
            String line = Markers.brickActivityOmitted(omitted);
            sb.append('\n').append(line);
            long lastOmitted = oldestShownSeq == Long.MAX_VALUE ? state.lastAppliedSeq() : oldestShownSeq - 1;
            notes.add(new Truncation(TruncationKind.BRICK_ACTIVITY_OMITTED, firstSeq(state), lastOmitted, omitted, line));
        }
        for (int i = shown.size() - 1; i >= 0; i--) {
            sb.append('\n').append(shown.get(i).text);
            notes.addAll(shown.get(i).notes);
        }
        return new Brick(sb.toString(), notes);
    }

    static long firstSeq(SessionState state) {
        return Math.max(state.firstAppliedSeq(), 0);
    }

    static String sessionLine(String tenantId, String sessionId, SessionState state, int maxAgents) {
        StringBuilder sb = new StringBuilder("[session ").append(sessionId).append(" of tenant ").append(tenantId)
                .append(": ").append(Markers.turns(state.turnCount()));
        List<String> agents = state.agents();
        int shown = Math.min(agents.size(), Math.max(0, maxAgents));
        if (shown > 0) {
            sb.append("; agents: ").append(String.join(", ", agents.subList(0, shown)));
            if (state.moreAgents() || shown < agents.size()) sb.append(" and others");
        }
        return sb.append(']').toString();
    }

    static String fixedPart(String session, String task, int taskChars, String brief, int briefChars,
                            List<String> missing, String done) {
        StringBuilder sb = new StringBuilder(session);
        if (task != null) sb.append('\n').append("[task] ").append(Escaping.escape(excerpt(task, taskChars)));
        if (brief != null) sb.append('\n').append("[brief] ").append(Escaping.escape(excerpt(brief, briefChars)));
        for (String m : missing) sb.append('\n').append(m);
        if (done != null) sb.append('\n').append(done);
        return sb.toString();
    }

    static String excerpt(String text, int chars) {
        if (text.length() <= chars) return text;
        return text.substring(0, Escaping.safeCut(text, chars)) + "…";
    }

    static List<Segment> missingMarkers(SessionState state, MissingRange pending) {
        List<Segment> out = new ArrayList<>();
        MissingRange older = state.olderMissing();
        if (older != null) {
            out.add(SegmentBuilder.missingMarker(older,
                    Markers.olderTurnsMissing(older.count(), older.from(), older.to())));
        }
        for (MissingRange r : state.missingRanges()) {
            out.add(SegmentBuilder.missingMarker(r, Markers.turnsMissing(r.count(), r.from(), r.to())));
        }
        if (pending != null) {
            out.add(SegmentBuilder.missingMarker(pending,
                    Markers.turnsMissing(pending.count(), pending.from(), pending.to())));
        }
        return out;
    }

    /**
     * Brick entries of the turns in state, newest first; legacy steps shown with their calling turn when shown. The
     * list is lazy: an entry is written when it is asked for (once per index: not cached), so the newest activity
     * that fits the brick costs what it shows, not the whole session.
     */
    static List<Entry> entries(SessionState state, RetentionPlan plan, Policy policy, LayoutCache layouts) {
        List<StoredTurn> turns = newestFirst(state.body(), state.headUser(), state.headAssistant());
        Long headAssistantSeq = state.headAssistant() == null ? null : state.headAssistant().seq;
        return new java.util.AbstractList<>() {
            @Override
            public Entry get(int i) {
                return entry(turns.get(i), plan, policy, headAssistantSeq, layouts);
            }

            @Override
            public int size() {
                return turns.size();
            }
        };
    }

    /**
     * The body turns (in seq order) and the head turns (null when absent), newest first: a merge from the body's end,
     * not a sort (asked on every hand-off, and the body is already in order).
     */
    static List<StoredTurn> newestFirst(List<StoredTurn> body, StoredTurn headUser, StoredTurn headAssistant) {
        StoredTurn first = headUser;
        StoredTurn second = headAssistant;
        if (first == null || (second != null && second.seq < first.seq)) {
            first = headAssistant;
            second = headUser;
        }
        // first is the older head turn (or the only one), second the newer one (or null).
        StoredTurn[] out = new StoredTurn[body.size() + (first == null ? 0 : 1) + (second == null ? 0 : 1)];
        int o = 0;
        int i = body.size() - 1;
        for (StoredTurn h : new StoredTurn[]{second, first}) {
            if (h == null) continue;
            while (i >= 0 && body.get(i).seq > h.seq) out[o++] = body.get(i--);
            out[o++] = h;
        }
        while (i >= 0) out[o++] = body.get(i--);
        return Arrays.asList(out);
    }

    /** One turn's entry. A legacy step answered by a TOOL turn is shown with that TOOL turn (seq order). */
    static Entry entry(StoredTurn t, RetentionPlan plan, Policy policy, Long headAssistantSeq, LayoutCache layouts) {
        List<String> lines = new ArrayList<>();
        List<Truncation> notes = new ArrayList<>();
        List<Segment> segs = SegmentBuilder.segmentsOf(t, plan, headAssistantSeq, layouts);
        if (t.role == Role.ASSISTANT || t.role == Role.USER || t.role == Role.SYSTEM) {
            String who = t.role == Role.ASSISTANT ? t.agent : t.role.name().toLowerCase();
            String head = "[seq " + t.seq + " " + who + "]";
            lines.add(t.text.isEmpty() ? head : head + " " + Escaping.escape(t.text));
        }
        if (t.trailBearing && !plan.isRetained(t.seq)) {
            String m = Markers.brickTrailNotShown(t.seq, String.join(", ", t.toolNames));
            lines.add(m);
            notes.add(new Truncation(TruncationKind.TRAIL_MANIFEST, t.seq, t.seq, 1, m));
        }
        List<StepView> steps = new ArrayList<>();
        for (Segment s : segs) if (s.kind() == Segment.Kind.STEP) steps.add(s.step());
        for (StepView s : steps) stepLines(s, policy, lines, notes);
        return new Entry(t.seq, String.join("\n", lines), notes);
    }

    static void stepLines(StepView s, Policy policy, List<String> lines, List<Truncation> notes) {
        lines.add(Narration.callLine(s));
        switch (s.outcome()) {
            case RESULT, ERROR -> {
                String r = s.result().plain();
                String label = s.outcome() == StepView.Outcome.RESULT ? "[result: " : "[error: ";
                int cap = policy.brickResultCapChars();
                if (r.length() > cap) {
                    String kept = r.substring(0, Escaping.safeCut(r, cap));
                    lines.add(label + Escaping.escape(kept) + "]");
                    lines.add(Markers.BRICK_RESULT_TRUNCATED);
                    notes.add(new Truncation(TruncationKind.BRICK_RESULT_TRUNCATED, s.seq(), s.seq(),
                            r.length() - kept.length(), Markers.BRICK_RESULT_TRUNCATED));
                } else {
                    lines.add(label + Escaping.escape(r) + "]");
                }
            }
            case CLEARED -> {
                lines.add(Narration.CLEARED);
                notes.add(new Truncation(TruncationKind.RESULT_CLEARED, s.seq(), s.seq(), 1, Narration.CLEARED));
            }
            case NO_RESULT -> lines.add(Narration.NO_RESULT);
        }
    }

    /** A single turn that alone exceeds the room: a head and a tail of itself around a marker line. */
    static Entry trimEntry(Entry e, int room) {
        String text = e.text;
        if (room <= 0) return new Entry(e.seq, "", List.of());
        String best = "";
        long bestCut = text.length();
        int lo = 0;
        int hi = text.length();
        while (lo <= hi) {
            int keep = (lo + hi) >>> 1;
            int headLen = Escaping.safeCut(text, (keep + 1) / 2);
            // Cut at line boundaries where there are any, so no line is left half-written.
            int nl = text.lastIndexOf('\n', headLen - 1);
            if (nl > 0) headLen = nl;
            int tailStart = Escaping.safeCutUp(text, text.length() - (keep - headLen));
            int next = tailStart > 0 ? text.indexOf('\n', tailStart - 1) : -1;
            if (next >= 0 && next + 1 < text.length()) tailStart = next + 1;
            if (tailStart < headLen) tailStart = headLen;
            long cut = tailStart - headLen;
            String tail = text.substring(tailStart);
            // The tail may start inside a line: escape it like any quoted line so it cannot pass for a marker.
            if (!tail.isEmpty() && Escaping.needsEscape(tail.charAt(0))) tail = "\\" + tail;
            String candidate = text.substring(0, headLen) + "\n" + Markers.brickTurnTrimmed(cut) + "\n" + tail;
            if (candidate.length() <= room) {
                best = candidate;
                bestCut = cut;
                lo = keep + 1;
            } else {
                hi = keep - 1;
            }
        }
        if (best.isEmpty()) {
            String m = Markers.brickTurnTrimmed(text.length());
            if (m.length() > room) return new Entry(e.seq, "", List.of());
            best = m;
            bestCut = text.length();
        }
        List<Truncation> notes = new ArrayList<>();
        String marker = Markers.brickTurnTrimmed(bestCut);
        notes.add(new Truncation(TruncationKind.BRICK_TURN_TRIMMED, e.seq, e.seq, bestCut, marker));
        for (Truncation n : e.notes) if (best.contains(n.marker())) notes.add(n);
        return new Entry(e.seq, best, notes);
    }
}
