package dev.baton.engine.layout;

import dev.baton.engine.narration.Datum;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.snapshot.Truncation;

import java.util.List;

/**
 * The unit of trimming (R5): one USER or SYSTEM message, one tool step (an own call with its result, or one
 * narration), one text message, or one Baton marker message. Its {@link #size()} is receiver-independent (R9: steps
 * are measured on the narrated form), so the same segments survive whoever receives.
 *
 * @param kind     what it is
 * @param order    position in the session: {@code 2*seq+1} for a turn's segments, {@code 2*from} for a missing-range
 *                 marker placed before the turns it precedes
 * @param seq      the turn the segment belongs to for trimming (a legacy step belongs to its TOOL turn), or the first
 *                 missing seq for a marker
 * @param homeSeq  for a legacy step answered by a later TOOL turn: the calling turn, where the step moves when that
 *                 turn is kept; otherwise equal to {@code seq}
 * @param agent    the agent of a text or step
 * @param text     USER/SYSTEM/ASSISTANT text (possibly cut)
 * @param step     the step of a STEP segment
 * @param marker   the text of a MARKER segment
 * @param notes    the truncations this segment makes visible (a marker, cuts); empty when none
 * @param size     budget characters, receiver-independent; computed here from the content (the value passed in is
 *                 ignored), once, because trimming asks for it many times and a step's size means narrating it
 */
public record Segment(Kind kind, long order, long seq, long homeSeq, String agent, Datum text, StepView step,
                      String marker, List<Truncation> notes, int size) {
    public Segment {
        notes = notes == null ? List.of() : List.copyOf(notes);
        size = switch (kind) {
            case USER, ASSISTANT_TEXT -> text.plainLength();
            case SYSTEM -> text.escapedLength();
            case STEP -> Narration.segmentSize(step);
            case MARKER -> marker.length();
        };
    }

    private Segment(Kind kind, long order, long seq, long homeSeq, String agent, Datum text, StepView step,
                    String marker, List<Truncation> notes) {
        this(kind, order, seq, homeSeq, agent, text, step, marker, notes, 0);
    }

    public enum Kind { USER, SYSTEM, ASSISTANT_TEXT, STEP, MARKER }

    public static Segment user(long seq, String agent, String text) {
        return new Segment(Kind.USER, 2 * seq + 1, seq, seq, agent, Datum.of(text), null, null, List.of());
    }

    public static Segment system(long seq, String agent, String text) {
        return new Segment(Kind.SYSTEM, 2 * seq + 1, seq, seq, agent, Datum.of(text), null, null, List.of());
    }

    public static Segment assistantText(long seq, String agent, String text) {
        return new Segment(Kind.ASSISTANT_TEXT, 2 * seq + 1, seq, seq, agent, Datum.of(text), null, null, List.of());
    }

    public static Segment step(long seq, long homeSeq, StepView step) {
        return new Segment(Kind.STEP, 2 * seq + 1, seq, homeSeq, step.agent(), null, step, null, List.of());
    }

    /** A Baton marker message placed before the turn {@code beforeSeq} (missing ranges). */
    public static Segment marker(long beforeSeq, String marker, Truncation note) {
        return new Segment(Kind.MARKER, 2 * beforeSeq, beforeSeq, beforeSeq, null, null, null, marker, List.of(note));
    }

    /** A Baton message outside the seq order (manifest, middle). */
    public static Segment baton(String content, Truncation note) {
        return new Segment(Kind.MARKER, -1, -1, -1, null, null, null, content, List.of(note));
    }

    /** True for a legacy step that moves to its calling turn when that turn is kept. */
    public boolean relocatable() {
        return kind == Kind.STEP && homeSeq != seq;
    }

    public Segment withText(Datum d) {
        return new Segment(kind, order, seq, homeSeq, agent, d, step, marker, notes);
    }

    public Segment withStep(StepView s) {
        return new Segment(kind, order, seq, homeSeq, agent, text, s, marker, notes);
    }

    public Segment withNotes(List<Truncation> n) {
        return new Segment(kind, order, seq, homeSeq, agent, text, step, marker, n);
    }

    /** The same segment placed at another position (a legacy step moving to its calling turn). */
    public Segment at(long newOrder) {
        return new Segment(kind, newOrder, seq, homeSeq, agent, text, step, marker, notes);
    }

    /** The SYSTEM segment's message content (R2: SYSTEM turns are quoted data). */
    public String systemContent() {
        return text.escaped();
    }
}
