package dev.baton.engine.state;

import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.PrefixPrint;
import dev.baton.engine.model.CompactJson;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.policy.Policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Bounded per-session state (docs/contract.md, "Input: SessionEvent" and "Bounded state"). Mutable, not thread-safe,
 * one per session. It is made of one part per idea — {@link Ordering} (seq order, held turns, missing ranges),
 * {@link Transcript} (head, window, compacted body), {@link TrailLedger} (R3's trails and open legacy calls),
 * {@link Actors} and {@link HandoffQueue} (remembered ids, waiting hand-offs) — and this class applies events across
 * them. It is stored as a small skeleton plus one entry per turn, held turn, digest line, trail and open call
 * ({@link StateStorage}); its {@link StateJournal} names the entries an event changed.
 *
 * <p>Turns apply in seq order: a repeated seq is a duplicate, a seq after a gap is held until the gap fills (or a
 * wait or bound settles it: the range is recorded missing and the held turns applied), and a turn whose seq was
 * recorded missing is {@code LATE_TURN}. After each apply the state compacts what no future snapshot can show:
 * <ul>
 *   <li>body turns older than the newest turns whose minimal rendered size (their text, which no later event
 *       shrinks) exceeds the largest budget — they become a count, a seq span and digest lines (capped);</li>
 *   <li>trails the retention plan put in the manifest (R3: once there, a trail never leaves it) — only tool names
 *       stay, and manifest entries beyond the manifest cap become a count.</li>
 * </ul>
 * The head (first USER turn and the first ASSISTANT turn after it) is kept whole. Rendering from the compacted state
 * equals rendering from the full history for every hand-off within the policy's limits ("compaction is invisible";
 * see {@code CompactionIsInvisibleProperties}).
 */
public final class SessionState {
    final Ordering ordering = new Ordering();
    final Transcript transcript = new Transcript();
    final TrailLedger ledger = new TrailLedger();
    final Actors actors = new Actors();
    final HandoffQueue handoffs = new HandoffQueue();
    final PrefixLedger prefixes = new PrefixLedger();
    /** Every tool call seen, grouped, bounded by the policy (the call ledger; not R3's {@link #ledger}). */
    final CallLedger calls = new CallLedger();

    // ---- counters and times
    long duplicateTurns;
    long lastEventMillis = -1;
    long closedAtMillis = -1;
    /** The session's input range (docs/audit.md): set by the processor, stored in the skeleton, never read here. */
    InputRange inputRange;

    /** False only in tests: keeps the full history, to check that compaction is invisible. */
    boolean compaction = true;
    /** The entries changed since the state was last stored; null when the state is never stored. */
    StateJournal journal;

    public SessionState() {
    }

    public static SessionState empty() {
        return new SessionState();
    }

    /** A state that never compacts: the full history, for tests of "compaction is invisible". */
    public static SessionState uncompacted() {
        SessionState s = new SessionState();
        s.compaction = false;
        return s;
    }

    /** Starts recording changed entries (see {@link StateStorage}); returns the journal. */
    public StateJournal journal() {
        if (journal == null) {
            journal = new StateJournal();
            ordering.journal = journal;
            transcript.journal = journal;
            ledger.journal = journal;
            prefixes.journal = journal;
            calls.journal = journal;
        }
        return journal;
    }

    /** Replaces where remembered hand-off ids are kept (the processor's store); the ordinals stay in the state. */
    public void useHandoffIds(HandoffIdLog ids) {
        handoffs.ids = ids;
    }

    /** Where remembered hand-off ids are kept. */
    public HandoffIdLog handoffIds() {
        return handoffs.ids;
    }

    // =====================================================================================================
    // Turns

    /** Applies a turn in seq order: dedupe, gap hold, compaction. {@code nowMillis} is wall clock (gap timers). */
    public TurnOutcome offerTurn(Turn turn, Policy policy, long nowMillis) {
        switch (ordering.classify(turn.seq())) {
            case LATE:
                return new TurnOutcome(TurnOutcome.Kind.LATE_TURN, 0, List.of());
            case DUPLICATE:
                duplicateTurns++;
                return new TurnOutcome(TurnOutcome.Kind.DUPLICATE, 0, List.of());
            case AHEAD:
                if (ordering.hold(turn, policy, nowMillis)) {
                    // The hold bound is reached: settle with a marker rather than drop anything.
                    int applied = settleGaps(policy);
                    return new TurnOutcome(TurnOutcome.Kind.APPLIED, applied, releaseReady());
                }
                return new TurnOutcome(TurnOutcome.Kind.HELD, 0, List.of());
            default:
                apply(turn, policy);
                int applied = 1;
                for (Turn t = ordering.takeNextHeld(); t != null; t = ordering.takeNextHeld()) {
                    apply(t, policy);
                    applied++;
                }
                return new TurnOutcome(TurnOutcome.Kind.APPLIED, applied, releaseReady());
        }
    }

    static long utf8(String s) {
        return Utf8.length(s);
    }

    /** True when {@code seq} lies in a recorded missing range or in the span of the aggregated older ranges. */
    public boolean isRecordedMissing(long seq) {
        return ordering.isRecordedMissing(seq);
    }

    /** Records the missing ranges before and between held turns and applies them all. Returns turns applied. */
    private int settleGaps(Policy policy) {
        int applied = 0;
        for (Turn t = ordering.takeOldestHeldRecordingGap(policy); t != null;
             t = ordering.takeOldestHeldRecordingGap(policy)) {
            apply(t, policy);
            applied++;
        }
        return applied;
    }

    private void apply(Turn t, Policy policy) {
        StoredTurn st = new StoredTurn();
        st.seq = t.seq();
        st.agent = t.agent();
        st.role = t.role();
        st.text = t.text();
        ordering.noteApplied(t.seq());

        if (t.role() == Role.ASSISTANT || t.role() == Role.TOOL) actors.noteActor(t.agent());
        if (t.role() == Role.ASSISTANT) actors.notePrimary(t.agent());

        if (t.role() == Role.ASSISTANT && (!t.trail().isEmpty() || !t.toolCalls().isEmpty())) {
            st.trailBearing = true;
            long bytes = 0;
            LinkedHashSet<String> names = new LinkedHashSet<>();
            if (!t.trail().isEmpty()) {
                st.trail = new ArrayList<>();
                for (ToolStep s : t.trail()) {
                    names.add(s.tool());
                    s = new ToolStep(s.callId(), s.tool(), compact(s.arguments()), s.result(), s.status());
                    bytes += utf8(s.arguments()) + utf8(s.result());
                    st.trail.add(s);
                    calls.record(t.seq(), t.agent(), s.callId(), s.tool(), s.arguments(), callStatus(s),
                            s.result(), policy);
                }
            }
            if (!t.toolCalls().isEmpty()) {
                st.calls = new ArrayList<>();
                for (ToolCall c0 : t.toolCalls()) {
                    ToolCall c = new ToolCall(c0.callId(), c0.tool(), compact(c0.arguments()));
                    names.add(c.tool());
                    st.calls.add(new StoredTurn.LegacyCall(c.callId(), c.tool(), c.arguments()));
                    bytes += utf8(c.arguments());
                    calls.record(t.seq(), t.agent(), c.callId(), c.tool(), c.arguments(), CallStatus.UNANSWERED,
                            null, policy);
                    if (c.callId() != null) ledger.open(t.seq(), t.agent(), c.callId(), c.tool(), c.arguments());
                }
                if (compaction) ledger.boundOpenCalls(policy);
            }
            st.toolNames = new ArrayList<>(names);
            ledger.add(new TrailEntry(t.seq(), t.agent(), st.toolNames, bytes));
        }

        if (t.role() == Role.TOOL) {
            st.toolCallId = t.toolCallId();
            TrailLedger.OpenCall oc = ledger.close(t.toolCallId());
            if (oc != null) {
                calls.answer(oc.callId(), oc.tool(), oc.arguments(), t.text());
                st.answers = new StoredTurn.ResolvedCall(oc.callingSeq(), oc.agent(), oc.callId(), oc.tool(),
                        oc.arguments());
                StoredTurn caller = transcript.find(oc.callingSeq());
                if (caller != null && caller.calls != null) {
                    for (StoredTurn.LegacyCall c : caller.calls) {
                        if (c.callId != null && c.callId.equals(oc.callId()) && c.answeredBySeq < 0) {
                            c.result = t.text();
                            c.answeredBySeq = t.seq();
                            caller.changed();
                            transcript.changed(caller);
                            break;
                        }
                    }
                }
                TrailEntry e = ledger.find(oc.callingSeq());
                if (e != null) ledger.addBytes(e, utf8(t.text()));
                // R3: a legacy step belongs to its calling turn; when that turn's trail is already in the manifest
                // (or counted there), the answer is rendered nowhere.
                if (e == null || e.manifested) {
                    st.manifested = true;
                    if (compaction) st.text = ""; // never rendered again (see markAnswerManifested)
                }
            } else {
                // R3: an orphan result (its call is unknown) is a trail-bearing turn of its own, weighing its
                // result's bytes: it takes its place among the newest trails, the inline budget and the manifest.
                st.trailBearing = true;
                st.toolNames = new ArrayList<>(List.of(Narration.UNKNOWN_TOOL));
                ledger.add(new TrailEntry(t.seq(), t.agent(), st.toolNames, utf8(t.text())));
            }
        }

        transcript.add(st);
        for (long seq : ledger.update(policy, compaction)) markManifested(seq);
        if (compaction) transcript.compact(policy);
    }

    private static CallStatus callStatus(ToolStep s) {
        return switch (s.status()) {
            case OK -> CallStatus.OK;
            case ERROR -> CallStatus.ERROR;
            case CLEARED -> CallStatus.CLEARED;
        };
    }

    /** Arguments are rendered in compact form (R1); the decoder already compacts, this keeps the engine safe alone. */
    private static String compact(String args) {
        try {
            return CompactJson.compactObject(args);
        } catch (IllegalArgumentException e) {
            return args == null ? "{}" : args;
        }
    }

    private void markManifested(long seq) {
        StoredTurn st = transcript.find(seq);
        // The TOOL turns answering its legacy calls go with it (R3: rendered nowhere else).
        if (st != null && st.calls != null) {
            for (StoredTurn.LegacyCall c : st.calls) {
                if (c.answeredBySeq >= 0) markAnswerManifested(transcript.find(c.answeredBySeq));
            }
        } else if (st == null) {
            transcript.forEachAnswerOf(seq, this::markAnswerManifested); // the caller left the state before its trail
        }
        if (st != null) {
            st.manifested = true;
            if (compaction) {
                // Only tool names are needed from now on (manifest, digest); an orphan result's text is its trail.
                st.trail = null;
                st.calls = null;
                if (st.role == Role.TOOL) st.text = "";
            }
            st.changed();
            transcript.changed(st);
        }
    }

    private void markAnswerManifested(StoredTurn answer) {
        if (answer == null || answer.manifested) return;
        answer.manifested = true;
        // Its result is part of its calling turn's trail, now in the manifest: it never renders again, anywhere.
        if (compaction) answer.text = "";
        answer.changed();
        transcript.changed(answer);
    }

    /**
     * After a read-back: a TOOL turn answering a call whose trail is in the manifest is marked so (states stored
     * before a legacy step went to the manifest with its calling turn did not mark it).
     */
    void settleReadBack() {
        List<StoredTurn> stale = new ArrayList<>();
        transcript.forEachBody(t -> {
            if (t.answers != null && !t.manifested) {
                TrailEntry e = ledger.find(t.answers.callingSeq());
                if (e == null || e.manifested) stale.add(t);
            }
        });
        for (StoredTurn t : stale) markAnswerManifested(t);
    }

    // =====================================================================================================
    // Hand-offs

    /** Registers a hand-off: duplicate id, ready now, or parked until its as_of_seq is applied. */
    public HandoffOutcome offerHandoff(Handoff handoff, long occurredAtMillis, Policy policy, long nowMillis) {
        if (handoffs.seenBefore(handoff.handoffId(), policy)) {
            return new HandoffOutcome(HandoffOutcome.Kind.DUPLICATE, List.of());
        }
        if (handoff.asOfSeq() == null || handoff.asOfSeq() < ordering.nextSeq) {
            return new HandoffOutcome(HandoffOutcome.Kind.READY,
                    List.of(new ReadyHandoff(handoff, occurredAtMillis, null)));
        }
        handoffs.park(handoff, occurredAtMillis, nowMillis);
        List<ReadyHandoff> ready = new ArrayList<>();
        if (handoffs.waiting.size() > Math.max(0, policy.maxWaitingHandoffs())) {
            // Past the bound the oldest waiting hand-off is emitted at once, with what is applied.
            HandoffQueue.WaitingHandoff oldest = handoffs.waiting.remove(0);
            settleGaps(policy);
            ready.add(HandoffQueue.forceRelease(oldest, ordering.nextSeq));
            ready.addAll(releaseReady());
        }
        return new HandoffOutcome(HandoffOutcome.Kind.PARKED, ready);
    }

    /** Hand-offs whose as_of_seq is now applied (or recorded missing), in the order they were parked. */
    private List<ReadyHandoff> releaseReady() {
        return handoffs.releaseBefore(ordering.nextSeq);
    }

    // =====================================================================================================
    // Stable prefix (docs/rendering.md, "Stable prefix" and "Trim step")

    /** The print of {@code receiver}'s last LOCAL snapshot of this session, or null when none is remembered. */
    public PrefixPrint prefixPrint(String receiver) {
        return prefixes.of(receiver);
    }

    /** The first seq of the tail of the session's last remembered (trimmed) snapshot, or -1: the trim step's anchor. */
    public long trimAnchorSeq() {
        return prefixes.anchorSeq();
    }

    /** Whether the middle of the session's last remembered (trimmed) snapshot was the bare marker, not the digest. */
    public boolean trimAnchorMarker() {
        return prefixes.anchorMarker();
    }

    /**
     * Remembers the print of a LOCAL snapshot emitted for {@code receiver} (the caller does it for the snapshots it
     * emits, not for previews): the next snapshot for the same receiver reports its stable prefix against it, and its
     * anchor is where the next trim step starts. At most {@value PrefixLedger#MAX_RECEIVERS} receivers are kept.
     */
    public void rememberPrint(String receiver, PrefixPrint print) {
        prefixes.remember(receiver, print);
    }

    // =====================================================================================================
    // Time

    /** Wall-clock punctuation: settles gaps held too long, releases hand-offs that waited too long. */
    public List<ReadyHandoff> onWallClock(long nowMillis, Policy policy) {
        List<ReadyHandoff> out = new ArrayList<>();
        if (!ordering.held.isEmpty() && nowMillis - ordering.heldSinceMillis >= policy.gapWaitMillis()) {
            settleGaps(policy);
            out.addAll(releaseReady());
        }
        boolean settled = false;
        for (HandoffQueue.WaitingHandoff w : handoffs.takeDue(nowMillis, policy)) {
            if (!settled) {
                // The turns a waiting hand-off asked for did not come: what did arrive is applied first, so that
                // the marker names only seqs that were really never received.
                settleGaps(policy);
                settled = true;
            }
            out.add(HandoffQueue.forceRelease(w, ordering.nextSeq));
        }
        if (settled) out.addAll(releaseReady());
        return out;
    }

    /** End of a backfill's input: settles every gap and releases every waiting hand-off at once. */
    public List<ReadyHandoff> settleAll(Policy policy) {
        List<ReadyHandoff> out = new ArrayList<>();
        if (!ordering.held.isEmpty()) settleGaps(policy);
        out.addAll(releaseReady());
        for (HandoffQueue.WaitingHandoff w : handoffs.waiting) out.add(HandoffQueue.forceRelease(w, ordering.nextSeq));
        handoffs.waiting.clear();
        return out;
    }

    /** Records a Closed event. */
    public void close(long nowMillis) {
        if (closedAtMillis < 0) closedAtMillis = nowMillis;
    }

    public boolean closed() {
        return closedAtMillis >= 0;
    }

    /** True once closed and the grace period passed, or idle past the TTL: the caller deletes the state. */
    public boolean expired(long nowMillis, Policy policy) {
        if (closedAtMillis >= 0 && nowMillis - closedAtMillis >= policy.closedGraceMillis()) return true;
        return lastEventMillis >= 0 && nowMillis - lastEventMillis >= policy.idleTtlMillis();
    }

    /** Records activity time (any event) for the idle TTL. */
    public void touch(long nowMillis) {
        lastEventMillis = Math.max(lastEventMillis, nowMillis);
    }

    /**
     * The earliest wall-clock time at which {@link #onWallClock} or {@link #expired} can change something, or
     * {@link Long#MAX_VALUE}: for a timer index that visits only sessions with something due.
     */
    public long nextDueMillis(Policy policy) {
        long due = Long.MAX_VALUE;
        if (!ordering.held.isEmpty()) due = Math.min(due, sat(ordering.heldSinceMillis, policy.gapWaitMillis()));
        for (HandoffQueue.WaitingHandoff w : handoffs.waiting) {
            due = Math.min(due, sat(w.parkedAtMillis(), policy.handoffWaitMillis()));
        }
        if (closedAtMillis >= 0) due = Math.min(due, sat(closedAtMillis, policy.closedGraceMillis()));
        if (lastEventMillis >= 0) due = Math.min(due, sat(lastEventMillis, policy.idleTtlMillis()));
        return due;
    }

    private static long sat(long a, long b) {
        long r = a + b;
        return (b > 0 && r < a) ? Long.MAX_VALUE : r;
    }

    // =====================================================================================================
    // Read access for the renderer and for operators

    public long nextSeq() { return ordering.nextSeq; }
    public long lastAppliedSeq() { return ordering.lastAppliedSeq; }
    /** The seq of the first turn applied, or -1. */
    public long firstAppliedSeq() { return ordering.firstAppliedSeq; }
    public long turnCount() { return ordering.turnCount; }
    public int heldCount() { return ordering.held.size(); }
    public List<MissingRange> missingRanges() { return ordering.missingRanges(); }
    public MissingRange olderMissing() { return ordering.olderMissing; }
    public StoredTurn headUser() { return transcript.headUser; }
    public StoredTurn headAssistant() { return transcript.headAssistant; }
    /** Body turns still held in full, in seq order (the newest ones). */
    public List<StoredTurn> body() { return transcript.body(); }
    /** How many body turns there are ({@code body().size()} without copying the list). */
    public int bodySize() { return transcript.bodySize(); }
    public Compacted compacted() { return transcript.compacted; }
    /** Trail-bearing turns known to the retention plan, newest first. */
    public List<TrailEntry> trails() { return Collections.unmodifiableList(ledger.trails); }
    public long manifestUnlisted() { return ledger.manifestUnlisted; }
    /** R3's walk (see {@link TrailLedger#walk}): for each of {@link #trails()}, 0 expanded, 1 inlined, 2 manifest. */
    public List<RetentionPlace> retentionWalk(Policy policy) {
        List<RetentionPlace> out = new ArrayList<>(ledger.trails.size());
        for (TrailLedger.Place p : ledger.walk(policy)) out.add(RetentionPlace.valueOf(p.name()));
        return out;
    }
    /** The call ledger's groups, newest call first (at most the policy's {@code call_ledger_entries}). */
    public List<CallGroup> callLedger() { return calls.newestFirst(); }
    /** How many groups the call ledger dropped past its bound, and how many calls they held. */
    public long callLedgerDroppedEntries() { return calls.droppedEntries; }
    public long callLedgerDroppedCalls() { return calls.droppedCalls; }
    /** Every call the call ledger counted (kept and dropped). */
    public long callLedgerCalls() { return calls.calls; }
    public String primaryAgent() { return actors.primaryAgent; }
    public String firstActor() { return actors.firstActor; }
    public boolean anotherActorActed() { return actors.anotherActorActed; }
    public List<String> agents() { return Collections.unmodifiableList(actors.agents); }
    public boolean moreAgents() { return actors.moreAgents; }
    public int waitingHandoffs() { return handoffs.waiting.size(); }
    public int rememberedHandoffIds() { return handoffs.remembered(); }
    public int openLegacyCalls() { return ledger.openCalls.size(); }
    public long duplicateTurns() { return duplicateTurns; }
    public long duplicateHandoffs() { return handoffs.duplicateHandoffs; }
    public long lastEventMillis() { return lastEventMillis; }
    public long closedAtMillis() { return closedAtMillis; }
    public boolean compacting() { return compaction; }
    /** The input range of the records applied to this state so far (docs/audit.md), or null. */
    public InputRange inputRange() { return inputRange; }
    public void inputRange(InputRange range) { inputRange = range; }
    /**
     * Approximate heap bytes of this state: the objects every state has ({@link #STATE_OVERHEAD_BYTES}), the turns it
     * holds at their heap size, the call ledger's entries, its held turns and its remembered prefix prints (a cache's
     * weight; see {@code StoredTurn#weight}).
     */
    public long weight() {
        return STATE_OVERHEAD_BYTES + transcript.weight + ordering.heldBytes + prefixes.weight()
                + (long) calls.groups.size() * CALL_GROUP_BYTES;
    }

    /** Heap bytes of one call-ledger entry: the group, its two hashes, ids and map nodes (estimated, not measured). */
    static final int CALL_GROUP_BYTES = 480;

    /** Heap bytes of an empty decoded state (its parts, their collections, the hand-off id log), measured. */
    public static final int STATE_OVERHEAD_BYTES = 900;
}
