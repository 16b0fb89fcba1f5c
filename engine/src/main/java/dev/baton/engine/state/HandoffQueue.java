package dev.baton.engine.state;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.policy.Policy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Hand-offs (docs/contract.md, "Hand-offs"): the remembered ids (a {@link HandoffIdLog}; the skeleton keeps only the
 * ordinals of the oldest and the next id) and the hand-offs waiting for their {@code as_of_seq}, in the order they were
 * parked.
 */
final class HandoffQueue {
    final List<WaitingHandoff> waiting = new ArrayList<>();
    /** Ordinal of the oldest remembered id; ids {@code [firstIdOrdinal, nextIdOrdinal)} are remembered. */
    long firstIdOrdinal;
    long nextIdOrdinal;
    long duplicateHandoffs;
    HandoffIdLog ids = HandoffIdLog.inMemory();

    /** A hand-off waiting for its as_of_seq. */
    record WaitingHandoff(Handoff handoff, long occurredAtMillis, long parkedAtMillis) {
    }

    /** True when the id was seen before (counted); otherwise remembers it, forgetting the oldest past the bound. */
    boolean seenBefore(String handoffId, Policy policy) {
        if (ids.contains(handoffId)) {
            duplicateHandoffs++;
            return true;
        }
        ids.put(nextIdOrdinal++, handoffId);
        while (nextIdOrdinal - firstIdOrdinal > Math.max(1, policy.rememberedHandoffIds())) {
            ids.remove(firstIdOrdinal++);
        }
        return false;
    }

    int remembered() {
        return (int) (nextIdOrdinal - firstIdOrdinal);
    }

    void park(Handoff handoff, long occurredAtMillis, long nowMillis) {
        waiting.add(new WaitingHandoff(handoff, occurredAtMillis, nowMillis));
    }

    /** Hand-offs whose as_of_seq is before {@code nextSeq}, removed, in the order they were parked. */
    List<ReadyHandoff> releaseBefore(long nextSeq) {
        if (waiting.isEmpty()) return List.of();
        List<ReadyHandoff> out = new ArrayList<>();
        Iterator<WaitingHandoff> it = waiting.iterator();
        while (it.hasNext()) {
            WaitingHandoff w = it.next();
            if (w.handoff().asOfSeq() < nextSeq) {
                out.add(new ReadyHandoff(w.handoff(), w.occurredAtMillis(), null));
                it.remove();
            }
        }
        return out;
    }

    /** Releases a hand-off whose wait ended before its as_of_seq was applied: the rest is pending missing. */
    static ReadyHandoff forceRelease(WaitingHandoff w, long nextSeq) {
        long asOf = w.handoff().asOfSeq();
        MissingRange pending = asOf >= nextSeq ? MissingRange.of(nextSeq, asOf) : null;
        return new ReadyHandoff(w.handoff(), w.occurredAtMillis(), pending);
    }

    /** Removes and returns the hand-offs that waited at least the policy's wait. */
    List<WaitingHandoff> takeDue(long nowMillis, Policy policy) {
        List<WaitingHandoff> due = new ArrayList<>();
        Iterator<WaitingHandoff> it = waiting.iterator();
        while (it.hasNext()) {
            WaitingHandoff w = it.next();
            if (nowMillis - w.parkedAtMillis() >= policy.handoffWaitMillis()) {
                due.add(w);
                it.remove();
            }
        }
        return due;
    }
}
