package dev.baton.engine.state;

import java.util.List;

/**
 * What offering a hand-off did.
 *
 * @param kind  READY (render {@code ready} now), PARKED (waiting for its as_of_seq; {@code ready} may still hold an
 *              older waiting hand-off pushed out by the waiting bound) or DUPLICATE (id seen before: ignored, counted)
 * @param ready hand-offs to render now, in order
 */
public record HandoffOutcome(Kind kind, List<ReadyHandoff> ready) {
    public enum Kind { READY, PARKED, DUPLICATE }

    public HandoffOutcome {
        ready = List.copyOf(ready);
    }
}
