package dev.baton.engine.layout;

import dev.baton.engine.narration.Datum;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Truncation;

import java.util.List;
import java.util.Objects;
import java.util.function.ToIntFunction;

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
 *
 * <p>A value class (equality over the parameters above) rather than a record only because it also carries what it
 * shows ({@link #shown()}), built on first use and kept with the segment.
 */
public final class Segment {
    private final Kind kind;
    private final long order;
    private final long seq;
    private final long homeSeq;
    private final String agent;
    private final Datum text;
    private final StepView step;
    private final String marker;
    private final List<Truncation> notes;
    private final int size;
    /**
     * Not part of the value: the content as shown to a receiver that does not replay it natively ({@link #shown()}),
     * built on first use. A segment kept in a render cache ({@link LayoutCache}) keeps it across hand-offs.
     */
    private String shown;
    /**
     * Not part of the value, like {@link #shown}: the message a receiver that does not replay this segment natively
     * gets ({@link MessageWriter}), one for a receiver that is the segment's agent (ASSISTANT_TEXT without a name) and
     * one for anyone else, with the budget characters of either (set with the first of them), and R9's count of the
     * items it shows ({@link #items}, -1 until asked). A segment kept in a render cache keeps them across hand-offs,
     * so an unchanged turn is written and counted once, not per hand-off.
     */
    Message message;
    Message ownMessage;
    int messageChars;
    private int items = -1;

    public Segment(Kind kind, long order, long seq, long homeSeq, String agent, Datum text, StepView step,
                   String marker, List<Truncation> notes, int size) {
        this.kind = kind;
        this.order = order;
        this.seq = seq;
        this.homeSeq = homeSeq;
        this.agent = agent;
        this.text = text;
        this.step = step;
        this.marker = marker;
        this.notes = notes == null ? List.of() : List.copyOf(notes);
        this.size = switch (kind) {
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

    public Kind kind() { return kind; }
    public long order() { return order; }
    public long seq() { return seq; }
    public long homeSeq() { return homeSeq; }
    public String agent() { return agent; }
    public Datum text() { return text; }
    public StepView step() { return step; }
    public String marker() { return marker; }
    public List<Truncation> notes() { return notes; }
    public int size() { return size; }

    /**
     * The content a receiver that does not replay this segment natively is shown: the plain text of a USER or
     * ASSISTANT_TEXT segment, the escaped text of a SYSTEM one (R2), the narration of a step (R1), a marker's text.
     * Built once per segment (a racy single check: every thread builds the same string).
     */
    public String shown() {
        String s = shown;
        if (s == null) {
            s = switch (kind) {
                case USER, ASSISTANT_TEXT -> text.plain();
                case SYSTEM -> text.escaped();
                case STEP -> Narration.narrate(step);
                case MARKER -> marker;
            };
            shown = s;
        }
        return s;
    }

    /**
     * R9's count of the items the one message this segment becomes for a non-native receiver shows, as
     * {@code count} computes it from the segment (a function of its content: the same for every receiver), computed
     * once per segment.
     */
    public int items(ToIntFunction<Segment> count) {
        int n = items;
        if (n < 0) {
            n = count.applyAsInt(this);
            items = n;
        }
        return n;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) return true;
        if (!(o instanceof Segment other)) return false;
        return kind == other.kind && order == other.order && seq == other.seq && homeSeq == other.homeSeq
                && size == other.size && Objects.equals(agent, other.agent) && Objects.equals(text, other.text)
                && Objects.equals(step, other.step) && Objects.equals(marker, other.marker)
                && notes.equals(other.notes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, order, seq, homeSeq, agent, text, step, marker, notes, size);
    }

    @Override
    public String toString() {
        return "Segment[kind=" + kind + ", order=" + order + ", seq=" + seq + ", homeSeq=" + homeSeq + ", agent="
                + agent + ", text=" + text + ", step=" + step + ", marker=" + marker + ", notes=" + notes + ", size="
                + size + "]";
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
        Segment noted = new Segment(kind, order, seq, homeSeq, agent, text, step, marker, n);
        noted.shown = shown; // the same content
        noted.copyMemos(this);
        return noted;
    }

    /** The same segment placed at another position (a legacy step moving to its calling turn). */
    public Segment at(long newOrder) {
        Segment moved = new Segment(kind, newOrder, seq, homeSeq, agent, text, step, marker, notes);
        moved.shown = shown; // the same content, shown the same way
        moved.copyMemos(this);
        return moved;
    }

    /** The same content: the same messages and item count (built or not yet). */
    private void copyMemos(Segment from) {
        message = from.message;
        ownMessage = from.ownMessage;
        messageChars = from.messageChars;
        items = from.items;
    }

    /** The SYSTEM segment's message content (R2: SYSTEM turns are quoted data). */
    public String systemContent() {
        return shown();
    }
}
