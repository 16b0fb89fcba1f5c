package dev.baton.engine.trim;

import dev.baton.engine.layout.Segment;
import dev.baton.engine.markers.Markers;
import dev.baton.engine.narration.Datum;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * R5: a segment that alone does not fit keeps a head and a tail of its content around a marker line. A step keeps
 * its call and cuts its result first, then its arguments (inside their longest string values). The cut is decided
 * on the receiver-independent size, so every receiver keeps the same characters (R9).
 */
public final class SegmentCutter {
    private SegmentCutter() {
    }

    /** The segment cut to at most {@code cap} characters where possible (never below its marker and call). */
    public static Segment cut(Segment seg, int cap) {
        if (seg.size() <= cap) return seg;
        return switch (seg.kind()) {
            case USER, ASSISTANT_TEXT -> {
                String text = seg.text().plain();
                Datum d = fit(text, k -> cutDatum(text, k), dd -> dd.plain().length(), cap);
                yield seg.withText(d).withNotes(note(seg.seq(), d, text.length()));
            }
            case SYSTEM -> {
                String text = seg.text().plain();
                Datum d = fit(text, k -> cutDatum(text, k), dd -> dd.escaped().length(), cap);
                yield seg.withText(d).withNotes(note(seg.seq(), d, text.length()));
            }
            case STEP -> cutStep(seg, cap);
            case MARKER -> seg;
        };
    }

    /**
     * Cuts a step: the larger of its result and its longest argument string first (so a short result is not cut for
     * nothing), then the other if still needed. Every visible marker gets its own truncation entry.
     */
    private static Segment cutStep(Segment seg, int cap) {
        StepView s = seg.step();
        boolean hasResult = s.outcome() == StepView.Outcome.RESULT || s.outcome() == StepView.Outcome.ERROR;
        int resultLen = hasResult ? s.result().plain().length() : 0;
        int longestArg = 0;
        for (ArgumentsCutter.Span sp : ArgumentsCutter.stringValueSpans(s.arguments())) {
            longestArg = Math.max(longestArg, sp.length());
        }
        List<Truncation> notes = new ArrayList<>();
        boolean argsFirst = longestArg > resultLen;
        if (argsFirst) s = cutArguments(seg, s, cap, notes);
        if (hasResult && size(seg, s) > cap) s = cutResult(seg, s, cap, notes);
        if (!argsFirst && size(seg, s) > cap) s = cutArguments(seg, s, cap, notes);
        return seg.withStep(s).withNotes(notes);
    }

    private static int size(Segment seg, StepView s) {
        return Segment.step(seg.seq(), seg.homeSeq(), s).size();
    }

    private static StepView cutResult(Segment seg, StepView s, int cap, List<Truncation> notes) {
        String r = s.result().plain();
        StepView base = s;
        Datum d = fit(r, k -> cutDatum(r, k), dd -> size(seg, base.withResult(dd)), cap);
        if (!d.cut()) return s;
        notes.add(new Truncation(TruncationKind.SEGMENT_TRIMMED, seg.seq(), seg.seq(), r.length() - d.length(), d.marker()));
        return s.withResult(d);
    }

    private static StepView cutArguments(Segment seg, StepView s, int cap, List<Truncation> notes) {
        int size = size(seg, s);
        if (size <= cap) return s;
        ArgumentsCutter.Cut c = ArgumentsCutter.cut(s.arguments(), size - cap);
        if (c.removed() == 0) return s;
        for (int i = 0; i < c.markers().size(); i++) {
            notes.add(new Truncation(TruncationKind.SEGMENT_TRIMMED, seg.seq(), seg.seq(), c.removedPerMarker().get(i),
                    c.markers().get(i)));
        }
        return s.withArguments(c.arguments());
    }

    private static List<Truncation> note(long seq, Datum d, int originalLength) {
        if (!d.cut()) return List.of();
        return List.of(new Truncation(TruncationKind.SEGMENT_TRIMMED, seq, seq, originalLength - d.length(), d.marker()));
    }

    /** Keeps {@code keep} characters: the first half and the last half around the marker line. */
    public static Datum cutDatum(String text, int keep) {
        if (keep >= text.length()) return Datum.of(text);
        int headLen = Escaping.safeCut(text, (keep + 1) / 2);
        int tailStart = Escaping.safeCutUp(text, text.length() - (keep - headLen));
        if (tailStart < headLen) tailStart = headLen;
        String head = text.substring(0, headLen);
        String tail = text.substring(tailStart);
        return new Datum(head, Markers.segmentTrimmed(text.length() - head.length() - tail.length()), tail);
    }

    /** The largest keep (binary search) whose rendered size fits {@code cap}; keep 0 when nothing fits. */
    static Datum fit(String text, IntFunction<Datum> cutter, java.util.function.ToIntFunction<Datum> size, int cap) {
        int lo = 0;
        int hi = text.length() - 1;
        Datum best = cutter.apply(0);
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Datum d = cutter.apply(mid);
            if (size.applyAsInt(d) <= cap) {
                best = d;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return best;
    }
}
