package dev.baton.engine.state;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;

import java.util.List;

/**
 * Bounded per-session state (API draft; implementation in progress). Mutable; not thread-safe; one per session.
 * Serialized with {@link SessionStateCodec}.
 */
public final class SessionState {

    public static SessionState empty() {
        return new SessionState();
    }

    /** Applies a turn in seq order: dedupe, gap hold, compaction. {@code nowMillis} is wall clock (gap timers). */
    public TurnOutcome offerTurn(Turn turn, Policy policy, long nowMillis) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Registers a hand-off: duplicate id, ready now, or parked until its as_of_seq is applied. */
    public HandoffOutcome offerHandoff(Handoff handoff, long occurredAtMillis, Policy policy, long nowMillis) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Wall-clock punctuation: settles gaps held too long, releases hand-offs that waited too long. */
    public List<ReadyHandoff> onWallClock(long nowMillis, Policy policy) {
        throw new UnsupportedOperationException("in progress");
    }

    /** End of a backfill's input: settles every gap and releases every waiting hand-off at once. */
    public List<ReadyHandoff> settleAll(Policy policy) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Records a Closed event. */
    public void close(long nowMillis) {
        throw new UnsupportedOperationException("in progress");
    }

    /** True once closed and the grace period passed, or idle past the TTL: the caller deletes the state. */
    public boolean expired(long nowMillis, Policy policy) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Records activity time (any event) for the idle TTL. */
    public void touch(long nowMillis) {
        throw new UnsupportedOperationException("in progress");
    }
}
