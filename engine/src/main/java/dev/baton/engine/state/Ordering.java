package dev.baton.engine.state;

import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Seq order and gaps (docs/contract.md, "Turns"): which seq comes next, the turns held until a gap fills (each held
 * turn is its own stored entry, {@link EntryKind#HELD}), and the ranges recorded missing when a wait or a bound
 * settled a gap (the newest {@code missingRangesKept} individually, older ones aggregated into one span).
 */
final class Ordering {
    long nextSeq;
    long lastAppliedSeq = -1;
    long firstAppliedSeq = -1;
    long turnCount;
    final TreeMap<Long, Turn> held = new TreeMap<>();
    long heldBytes;
    long heldSinceMillis = -1;
    final List<MissingRange> missing = new ArrayList<>();
    MissingRange olderMissing;
    StateJournal journal;

    /** What a seq is, relative to what was applied and held. */
    enum Position { NEXT, LATE, DUPLICATE, AHEAD }

    Position classify(long seq) {
        if (seq < nextSeq) return isRecordedMissing(seq) ? Position.LATE : Position.DUPLICATE;
        if (seq > nextSeq) return held.containsKey(seq) ? Position.DUPLICATE : Position.AHEAD;
        return Position.NEXT;
    }

    /** True when {@code seq} lies in a recorded missing range or in the span of the aggregated older ranges. */
    boolean isRecordedMissing(long seq) {
        for (MissingRange r : missing) if (r.contains(seq)) return true;
        return olderMissing != null && olderMissing.contains(seq);
    }

    /** Holds a turn that arrived after a gap; true when the hold bound (count or bytes) is now exceeded. */
    boolean hold(Turn turn, Policy policy, long nowMillis) {
        held.put(turn.seq(), turn);
        if (journal != null) journal.put(EntryKind.HELD, turn.seq());
        heldBytes += approximateBytes(turn);
        if (heldSinceMillis < 0) heldSinceMillis = nowMillis;
        return held.size() > policy.maxHeldTurns() || heldBytes > policy.maxHeldBytes();
    }

    /** The held turn whose seq is next, removed from the hold, or null. */
    Turn takeNextHeld() {
        if (held.isEmpty() || held.firstKey() != nextSeq) return null;
        return release(held.pollFirstEntry());
    }

    /** The oldest held turn, removed from the hold (recording the gap before it missing), or null. */
    Turn takeOldestHeldRecordingGap(Policy policy) {
        if (held.isEmpty()) return null;
        Map.Entry<Long, Turn> e = held.pollFirstEntry();
        if (e.getKey() > nextSeq) recordMissing(nextSeq, e.getKey() - 1, policy);
        return release(e);
    }

    private Turn release(Map.Entry<Long, Turn> e) {
        if (journal != null) journal.delete(EntryKind.HELD, e.getKey());
        heldBytes -= approximateBytes(e.getValue());
        if (held.isEmpty()) {
            heldBytes = 0;
            heldSinceMillis = -1;
        }
        return e.getValue();
    }

    void noteApplied(long seq) {
        turnCount++;
        if (firstAppliedSeq < 0) firstAppliedSeq = seq;
        lastAppliedSeq = seq;
        nextSeq = seq + 1;
    }

    private void recordMissing(long from, long to, Policy policy) {
        missing.add(MissingRange.of(from, to));
        while (missing.size() > Math.max(0, policy.missingRangesKept())) {
            MissingRange old = missing.remove(0);
            olderMissing = olderMissing == null ? old
                    : new MissingRange(Math.min(olderMissing.from(), old.from()), Math.max(olderMissing.to(), old.to()),
                    olderMissing.count() + old.count());
        }
        nextSeq = to + 1;
    }

    List<MissingRange> missingRanges() {
        return Collections.unmodifiableList(missing);
    }

    static long approximateBytes(Turn t) {
        long n = Utf8.length(t.text()) + 64;
        for (ToolStep s : t.trail()) n += Utf8.length(s.arguments()) + Utf8.length(s.result()) + Utf8.length(s.tool()) + 32;
        for (ToolCall c : t.toolCalls()) n += Utf8.length(c.arguments()) + Utf8.length(c.tool()) + 32;
        return n;
    }
}
