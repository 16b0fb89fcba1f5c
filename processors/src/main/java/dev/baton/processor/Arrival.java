package dev.baton.processor;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Turn;

/**
 * What arrives at a session: a turn, a hand-off or a Closed event from the input, the backfill's end-of-input signal,
 * or the wall clock (the punctuator's visit of a session with something due).
 */
public sealed interface Arrival {
    record TurnArrived(Turn turn) implements Arrival {
    }

    record HandoffArrived(Handoff handoff, long occurredAtMillis) implements Arrival {
    }

    record Closed(String reason) implements Arrival {
    }

    /** The backfill's end of input for this session: settle every gap and waiting hand-off now. */
    record Settle() implements Arrival {
    }

    /** The wall clock reached something the session had due (a gap's wait, a hand-off's wait, grace, idle TTL). */
    record WallClock() implements Arrival {
    }

    /** True for what comes from the input topic (a turn, a hand-off, Closed): it touches the session. */
    default boolean fromInput() {
        return this instanceof TurnArrived || this instanceof HandoffArrived || this instanceof Closed;
    }
}
