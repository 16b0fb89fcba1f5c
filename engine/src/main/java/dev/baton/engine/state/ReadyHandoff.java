package dev.baton.engine.state;

import dev.baton.engine.model.Handoff;

/**
 * A hand-off ready to be rendered now.
 *
 * @param handoff          the hand-off
 * @param occurredAtMillis the hand-off event's occurred_at
 * @param pendingMissing   when the hand-off stopped waiting before its {@code as_of_seq} arrived: the seqs it asked
 *                         for that were never applied (rendered as a TURNS_MISSING marker); otherwise null
 */
public record ReadyHandoff(Handoff handoff, long occurredAtMillis, MissingRange pendingMissing) {
}
