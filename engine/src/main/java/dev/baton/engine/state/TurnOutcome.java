package dev.baton.engine.state;

import java.util.List;

/**
 * What offering a turn did.
 *
 * @param kind     APPLIED (this turn and possibly held turns after it), HELD (waiting for a gap to fill),
 *                 DUPLICATE (seq already applied or held: ignored, counted) or LATE_TURN (its seq was recorded
 *                 missing: the caller dead-letters it)
 * @param applied  how many turns were applied by this offer (0 for HELD/DUPLICATE/LATE_TURN unless the hold
 *                 bound forced the held turns in)
 * @param released hand-offs whose wait ended because of this offer, in the order they must be rendered
 */
public record TurnOutcome(Kind kind, int applied, List<ReadyHandoff> released) {
    public enum Kind { APPLIED, HELD, DUPLICATE, LATE_TURN }

    public TurnOutcome {
        released = List.copyOf(released);
    }
}
