package dev.baton.engine.layout;

import java.util.List;

/**
 * A stored turn's kept layout (in a {@link LayoutCache}): the segments the turn laid out into at its last
 * hand-off, and what they depend on besides the turn's own content. A turn's segments depend only on the turn and,
 * for an ASSISTANT turn, on whether its trail is retained (R3) and whether it is the head's ASSISTANT turn; for a
 * TOOL turn, on the same two facts about the turn whose call it answers. Most stored turns do not change between two
 * hand-offs, so the next hand-off reuses their segments (and the text each segment shows, {@link Segment#shown()})
 * instead of laying them out, measuring and narrating them again. Not part of the state: a render cache's entry.
 *
 * <p>Valid while {@link #matches} holds: the turn's content is the same (its trail and legacy-call lists are the same
 * objects, as many legacy calls are answered, and the state made no change to the turn since: {@code changes}) and both facts
 * are the same. A policy change reaches a turn only through those facts (the retention plan).
 *
 * @param retained  the ASSISTANT turn's trail, or the answered call's calling turn, is retained
 * @param head      the ASSISTANT turn, or the answered call's calling turn, is the head's ASSISTANT turn
 * @param trail     the turn's trail list when laid out (identity)
 * @param calls     the turn's legacy-call list when laid out (identity)
 * @param answered  how many of those legacy calls had an answer
 * @param changes   the turn's {@code StoredTurn.changes()} when laid out
 * @param segments  the segments, in the turn's own order (immutable)
 */
public record TurnLayout(boolean retained, boolean head, Object trail, Object calls, int answered, int changes,
                         List<Segment> segments) {
    public TurnLayout {
        segments = List.copyOf(segments);
    }

    /** True when this layout holds the segments of a turn with these facts and content. */
    boolean matches(boolean retained, boolean head, Object trail, Object calls, int answered, int changes) {
        return this.retained == retained && this.head == head && this.trail == trail && this.calls == calls
                && this.answered == answered && this.changes == changes;
    }
}
