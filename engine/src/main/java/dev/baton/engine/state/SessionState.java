package dev.baton.engine.state;

import dev.baton.engine.model.CompactJson;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.trim.DigestLine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bounded per-session state (CONTRACT.md §2 and "Bounded state"). Mutable, not thread-safe, one per session;
 * serialized with {@link SessionStateCodec}.
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
    // ---- ordering (§2)
    long nextSeq;
    long lastAppliedSeq = -1;
    long firstAppliedSeq = -1;
    long turnCount;
    TreeMap<Long, Turn> held = new TreeMap<>();
    long heldBytes;
    long heldSinceMillis = -1;
    List<MissingRange> missing = new ArrayList<>();
    MissingRange olderMissing;

    // ---- transcript (R5)
    StoredTurn headUser;
    StoredTurn headAssistant;
    ArrayDeque<StoredTurn> body = new ArrayDeque<>();
    Compacted compacted = new Compacted();

    // ---- retention (R3)
    /** Trail-bearing turns, newest first; manifest entries beyond the manifest cap are only counted. */
    List<TrailEntry> trails = new ArrayList<>();
    long manifestUnlisted;
    LinkedHashMap<String, OpenCall> openCalls = new LinkedHashMap<>();

    // ---- actors (R6, R7, R9)
    String primaryAgent;
    String firstActor;
    boolean anotherActorActed;
    List<String> agents = new ArrayList<>();
    boolean moreAgents;

    // ---- hand-offs (§2)
    LinkedHashSet<String> handoffIds = new LinkedHashSet<>();
    List<WaitingHandoff> waiting = new ArrayList<>();

    // ---- counters and times
    long duplicateTurns;
    long duplicateHandoffs;
    long lastEventMillis = -1;
    long closedAtMillis = -1;

    /** False only in tests: keeps the full history, to check that compaction is invisible. */
    boolean compaction = true;

    /** A legacy call not yet answered by a TOOL turn. */
    public record OpenCall(long callingSeq, String agent, String callId, String tool, String arguments) {
    }

    /** A hand-off waiting for its as_of_seq. */
    public record WaitingHandoff(Handoff handoff, long occurredAtMillis, long parkedAtMillis) {
    }

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

    // =====================================================================================================
    // Turns

    /** Applies a turn in seq order: dedupe, gap hold, compaction. {@code nowMillis} is wall clock (gap timers). */
    public TurnOutcome offerTurn(Turn turn, Policy policy, long nowMillis) {
        long seq = turn.seq();
        if (seq < nextSeq) {
            if (isRecordedMissing(seq)) return new TurnOutcome(TurnOutcome.Kind.LATE_TURN, 0, List.of());
            duplicateTurns++;
            return new TurnOutcome(TurnOutcome.Kind.DUPLICATE, 0, List.of());
        }
        if (seq > nextSeq) {
            if (held.containsKey(seq)) {
                duplicateTurns++;
                return new TurnOutcome(TurnOutcome.Kind.DUPLICATE, 0, List.of());
            }
            held.put(seq, turn);
            heldBytes += approximateBytes(turn);
            if (heldSinceMillis < 0) heldSinceMillis = nowMillis;
            if (held.size() > policy.maxHeldTurns() || heldBytes > policy.maxHeldBytes()) {
                // The hold bound is reached: settle with a marker rather than drop anything.
                int applied = settleGaps(policy);
                return new TurnOutcome(TurnOutcome.Kind.APPLIED, applied, releaseReady());
            }
            return new TurnOutcome(TurnOutcome.Kind.HELD, 0, List.of());
        }
        apply(turn, policy);
        int applied = 1;
        while (!held.isEmpty() && held.firstKey() == nextSeq) {
            Turn t = held.pollFirstEntry().getValue();
            heldBytes -= approximateBytes(t);
            apply(t, policy);
            applied++;
        }
        if (held.isEmpty()) {
            heldBytes = 0;
            heldSinceMillis = -1;
        }
        return new TurnOutcome(TurnOutcome.Kind.APPLIED, applied, releaseReady());
    }

    private static long approximateBytes(Turn t) {
        long n = utf8(t.text()) + 64;
        for (ToolStep s : t.trail()) n += utf8(s.arguments()) + utf8(s.result()) + utf8(s.tool()) + 32;
        for (ToolCall c : t.toolCalls()) n += utf8(c.arguments()) + utf8(c.tool()) + 32;
        return n;
    }

    static long utf8(String s) {
        if (s == null) return 0;
        // Fast path for ASCII; exact UTF-8 length otherwise.
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) n++;
            else if (c < 0x800) n += 2;
            else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else n += 3;
        }
        return n;
    }

    /** True when {@code seq} lies in a recorded missing range or in the span of the aggregated older ranges. */
    public boolean isRecordedMissing(long seq) {
        for (MissingRange r : missing) if (r.contains(seq)) return true;
        return olderMissing != null && olderMissing.contains(seq);
    }

    /** Records the missing ranges before and between held turns and applies them all. Returns turns applied. */
    private int settleGaps(Policy policy) {
        int applied = 0;
        while (!held.isEmpty()) {
            Map.Entry<Long, Turn> e = held.pollFirstEntry();
            if (e.getKey() > nextSeq) recordMissing(nextSeq, e.getKey() - 1, policy);
            apply(e.getValue(), policy);
            applied++;
        }
        heldBytes = 0;
        heldSinceMillis = -1;
        return applied;
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

    private void apply(Turn t, Policy policy) {
        StoredTurn st = new StoredTurn();
        st.seq = t.seq();
        st.agent = t.agent();
        st.role = t.role();
        st.text = t.text();
        turnCount++;
        if (firstAppliedSeq < 0) firstAppliedSeq = t.seq();
        lastAppliedSeq = t.seq();
        nextSeq = t.seq() + 1;

        if (t.role() == Role.ASSISTANT || t.role() == Role.TOOL) noteActor(t.agent());
        if (t.role() == Role.ASSISTANT && primaryAgent == null) primaryAgent = t.agent();

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
                }
            }
            if (!t.toolCalls().isEmpty()) {
                st.calls = new ArrayList<>();
                for (ToolCall c0 : t.toolCalls()) {
                    ToolCall c = new ToolCall(c0.callId(), c0.tool(), compact(c0.arguments()));
                    names.add(c.tool());
                    st.calls.add(new StoredTurn.LegacyCall(c.callId(), c.tool(), c.arguments()));
                    bytes += utf8(c.arguments());
                    if (c.callId() != null) {
                        openCalls.remove(c.callId());
                        openCalls.put(c.callId(), new OpenCall(t.seq(), t.agent(), c.callId(), c.tool(), c.arguments()));
                    }
                }
                if (compaction) {
                    while (openCalls.size() > Math.max(0, policy.maxOpenLegacyCalls())) {
                        Iterator<String> it = openCalls.keySet().iterator();
                        it.next();
                        it.remove();
                    }
                }
            }
            st.toolNames = new ArrayList<>(names);
            trails.add(0, new TrailEntry(t.seq(), t.agent(), st.toolNames, bytes));
        }

        if (t.role() == Role.TOOL) {
            st.toolCallId = t.toolCallId();
            OpenCall oc = t.toolCallId() == null ? null : openCalls.remove(t.toolCallId());
            if (oc != null) {
                st.answers = new StoredTurn.ResolvedCall(oc.callingSeq(), oc.agent(), oc.callId(), oc.tool(),
                        oc.arguments());
                StoredTurn caller = findStored(oc.callingSeq());
                if (caller != null && caller.calls != null) {
                    for (StoredTurn.LegacyCall c : caller.calls) {
                        if (c.callId != null && c.callId.equals(oc.callId()) && c.answeredBySeq < 0) {
                            c.result = t.text();
                            c.answeredBySeq = t.seq();
                            break;
                        }
                    }
                }
                for (TrailEntry e : trails) {
                    if (e.seq == oc.callingSeq()) {
                        e.bytes += utf8(t.text());
                        break;
                    }
                }
            }
        }

        boolean head = false;
        if (t.role() == Role.USER && headUser == null) {
            headUser = st;
            head = true;
        } else if (t.role() == Role.ASSISTANT && headUser != null && headAssistant == null) {
            headAssistant = st;
            head = true;
        }
        if (!head) body.addLast(st);
        updateRetention(policy);
        compactBody(policy);
    }

    /** Arguments are rendered in compact form (R1); the decoder already compacts, this keeps the engine safe alone. */
    private static String compact(String args) {
        try {
            return CompactJson.compactObject(args);
        } catch (IllegalArgumentException e) {
            return args == null ? "{}" : args;
        }
    }

    private void noteActor(String agent) {
        if (firstActor == null) firstActor = agent;
        else if (!firstActor.equals(agent)) anotherActorActed = true;
        if (!agents.contains(agent)) {
            // The brick's session line names at most 8 agents (R6): more are only flagged.
            if (agents.size() < 8) agents.add(agent);
            else moreAgents = true;
        }
    }

    /** The stored head or body turn with this seq, or null. */
    StoredTurn findStored(long seq) {
        if (headUser != null && headUser.seq == seq) return headUser;
        if (headAssistant != null && headAssistant.seq == seq) return headAssistant;
        // Recent turns are at the end: search backwards.
        Iterator<StoredTurn> it = body.descendingIterator();
        while (it.hasNext()) {
            StoredTurn s = it.next();
            if (s.seq == seq) return s;
            if (s.seq < seq) break;
        }
        return null;
    }

    /** How a body turn's presence in the transcript can change over time. */
    enum Presence {
        /** Always renders at least one segment (a text, a USER/SYSTEM message, a TOOL result). */
        ALWAYS,
        /** Renders nothing now and never again (an empty ASSISTANT turn without a retained trail). */
        NEVER,
        /** May change (a retained trail of an empty turn; a TOOL turn whose step sits on the head). */
        CHANGING
    }

    /** A TOOL turn answering a legacy call of the head's first plan: its step may sit on the head (R1). */
    private boolean answersTheHead(StoredTurn t) {
        return t.answers != null && headAssistant != null && t.answers.callingSeq() == headAssistant.seq;
    }

    Presence presence(StoredTurn t) {
        switch (t.role) {
            case USER, SYSTEM:
                return Presence.ALWAYS;
            case ASSISTANT:
                if (!t.text.isEmpty()) return Presence.ALWAYS;
                return t.trailBearing && !t.manifested ? Presence.CHANGING : Presence.NEVER;
            default:
                if (answersTheHead(t) && !headAssistant.manifested) return Presence.CHANGING;
                return Presence.ALWAYS;
        }
    }

    /**
     * The smallest size a body turn can ever render at in the transcript: its text (or its result, for a TOOL turn
     * not carried by the head). Trails can move to the manifest and legacy steps between turns, but a text or a
     * result never leaves the transcript.
     */
    long minTranscriptChars(StoredTurn t) {
        if (t.role == Role.TOOL) {
            return answersTheHead(t) ? 0 : t.text.length();
        }
        return t.text.length();
    }

    /**
     * The smallest size of a turn's brick entry: its {@code [seq N who]} line and text; for a TOOL turn whose step it
     * carries, its result up to the brick's per-result cap.
     */
    long minBrickChars(StoredTurn t, Policy policy) {
        if (t.role == Role.TOOL) {
            return answersTheHead(t) ? 0 : Math.min(t.text.length(), Math.max(0, policy.brickResultCapChars()));
        }
        // "[seq " + seq + " " + who (at least one character) + "]", then the text.
        return 8 + ManifestLine.digits(t.seq) + t.text.length();
    }

    /** The largest window any future hand-off can render: the tenant's transcript budget or the largest brick. */
    static long window(Policy policy) {
        return Math.max(policy.maxTranscriptBudget(), brickWindow(policy));
    }

    static long brickWindow(Policy policy) {
        return Math.max(policy.brickBudgetCliChars(), policy.brickBudgetLocalChars());
    }

    /**
     * Compaction (bounded state). Walking from the oldest body turn, with the minimal sizes of the strictly newer
     * turns: a turn that always renders leaves once those newer turns alone exceed every budget (it can only be in
     * the middle again: it becomes a count, a span and a digest line); a turn that never renders again leaves once
     * it is out of the brick's reach; a turn whose presence may still change stays (there are few: retained trails
     * and TOOL turns carried by the head).
     */
    private void compactBody(Policy policy) {
        if (!compaction || body.size() < 2) return;
        long w = window(policy);
        long bw = brickWindow(policy);
        long newerT = 0;
        long newerB = 0;
        for (StoredTurn t : body) {
            newerT += minTranscriptChars(t);
            newerB += minBrickChars(t, policy);
        }
        Iterator<StoredTurn> it = body.iterator();
        int left = body.size();
        while (it.hasNext() && left > 1) {
            StoredTurn t = it.next();
            left--;
            newerT -= minTranscriptChars(t);
            newerB -= minBrickChars(t, policy);
            if (newerB <= bw && newerT <= w) break; // nothing newer can leave either
            Presence p = presence(t);
            // The brick caps results, so the brick's reach is checked on its own sizes too.
            if (p == Presence.ALWAYS && newerT > w && newerB > bw) {
                it.remove();
                compacted.add(t.seq, DigestLine.of(t), policy.digestBudgetChars());
            } else if (p == Presence.NEVER && newerB > bw) {
                it.remove();
            }
        }
    }

    /** Marks trails that R3 puts in the manifest; drops their contents and entries past the manifest cap. */
    private void updateRetention(Policy policy) {
        long cumulative = 0;
        boolean overflow = false;
        long manifestLineChars = 0;
        for (int i = 0; i < trails.size(); i++) {
            TrailEntry e = trails.get(i);
            if (!e.manifested) {
                if (i < policy.expandedTrailTurns()) continue;
                cumulative += e.bytes;
                if (!overflow && cumulative <= policy.inlineTrailBytes()) continue;
                overflow = true;
                e.manifested = true;
                markManifested(e.seq);
            } else {
                overflow = true;
            }
            if (!compaction) continue;
            manifestLineChars += ManifestLine.length(e) + 1;
            if (manifestLineChars > policy.manifestCapChars()) {
                // Entries this old can never be listed again (newer entries only push them further): count them.
                int drop = trails.size() - i;
                manifestUnlisted += drop;
                trails.subList(i, trails.size()).clear();
                break;
            }
        }
    }

    private void markManifested(long seq) {
        StoredTurn st = findStored(seq);
        if (st != null) {
            st.manifested = true;
            if (compaction) {
                // Only tool names are needed from now on (manifest, digest).
                st.trail = null;
                st.calls = null;
            }
        }
    }

    // =====================================================================================================
    // Hand-offs

    /** Registers a hand-off: duplicate id, ready now, or parked until its as_of_seq is applied. */
    public HandoffOutcome offerHandoff(Handoff handoff, long occurredAtMillis, Policy policy, long nowMillis) {
        if (handoffIds.contains(handoff.handoffId())) {
            duplicateHandoffs++;
            return new HandoffOutcome(HandoffOutcome.Kind.DUPLICATE, List.of());
        }
        handoffIds.add(handoff.handoffId());
        while (handoffIds.size() > Math.max(1, policy.rememberedHandoffIds())) {
            Iterator<String> it = handoffIds.iterator();
            it.next();
            it.remove();
        }
        if (handoff.asOfSeq() == null || handoff.asOfSeq() < nextSeq) {
            return new HandoffOutcome(HandoffOutcome.Kind.READY,
                    List.of(new ReadyHandoff(handoff, occurredAtMillis, null)));
        }
        waiting.add(new WaitingHandoff(handoff, occurredAtMillis, nowMillis));
        List<ReadyHandoff> ready = new ArrayList<>();
        if (waiting.size() > Math.max(0, policy.maxWaitingHandoffs())) {
            // Past the bound the oldest waiting hand-off is emitted at once, with what is applied.
            WaitingHandoff oldest = waiting.remove(0);
            settleGaps(policy);
            ready.add(forceRelease(oldest));
            ready.addAll(releaseReady());
        }
        return new HandoffOutcome(HandoffOutcome.Kind.PARKED, ready);
    }

    private ReadyHandoff forceRelease(WaitingHandoff w) {
        long asOf = w.handoff().asOfSeq();
        MissingRange pending = asOf >= nextSeq ? MissingRange.of(nextSeq, asOf) : null;
        return new ReadyHandoff(w.handoff(), w.occurredAtMillis(), pending);
    }

    /** Hand-offs whose as_of_seq is now applied (or recorded missing), in the order they were parked. */
    private List<ReadyHandoff> releaseReady() {
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

    // =====================================================================================================
    // Time

    /** Wall-clock punctuation: settles gaps held too long, releases hand-offs that waited too long. */
    public List<ReadyHandoff> onWallClock(long nowMillis, Policy policy) {
        List<ReadyHandoff> out = new ArrayList<>();
        if (!held.isEmpty() && nowMillis - heldSinceMillis >= policy.gapWaitMillis()) {
            settleGaps(policy);
            out.addAll(releaseReady());
        }
        boolean settled = false;
        Iterator<WaitingHandoff> it = waiting.iterator();
        List<WaitingHandoff> due = new ArrayList<>();
        while (it.hasNext()) {
            WaitingHandoff w = it.next();
            if (nowMillis - w.parkedAtMillis() >= policy.handoffWaitMillis()) {
                due.add(w);
                it.remove();
            }
        }
        for (WaitingHandoff w : due) {
            if (!settled) {
                // The turns a waiting hand-off asked for did not come: what did arrive is applied first, so that
                // the marker names only seqs that were really never received.
                settleGaps(policy);
                settled = true;
            }
            out.add(forceRelease(w));
        }
        if (settled) out.addAll(releaseReady());
        return out;
    }

    /** End of a backfill's input: settles every gap and releases every waiting hand-off at once. */
    public List<ReadyHandoff> settleAll(Policy policy) {
        List<ReadyHandoff> out = new ArrayList<>();
        if (!held.isEmpty()) settleGaps(policy);
        out.addAll(releaseReady());
        for (WaitingHandoff w : waiting) out.add(forceRelease(w));
        waiting.clear();
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
        if (!held.isEmpty()) due = Math.min(due, sat(heldSinceMillis, policy.gapWaitMillis()));
        for (WaitingHandoff w : waiting) due = Math.min(due, sat(w.parkedAtMillis(), policy.handoffWaitMillis()));
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

    public long nextSeq() { return nextSeq; }
    public long lastAppliedSeq() { return lastAppliedSeq; }
    /** The seq of the first turn applied, or -1. */
    public long firstAppliedSeq() { return firstAppliedSeq; }
    public long turnCount() { return turnCount; }
    public int heldCount() { return held.size(); }
    public List<MissingRange> missingRanges() { return Collections.unmodifiableList(missing); }
    public MissingRange olderMissing() { return olderMissing; }
    public StoredTurn headUser() { return headUser; }
    public StoredTurn headAssistant() { return headAssistant; }
    /** Body turns still held in full, in seq order (the newest ones). */
    public List<StoredTurn> body() { return List.copyOf(body); }
    public Compacted compacted() { return compacted; }
    /** Trail-bearing turns known to the retention plan, newest first. */
    public List<TrailEntry> trails() { return Collections.unmodifiableList(trails); }
    public long manifestUnlisted() { return manifestUnlisted; }
    public String primaryAgent() { return primaryAgent; }
    public String firstActor() { return firstActor; }
    public boolean anotherActorActed() { return anotherActorActed; }
    public List<String> agents() { return Collections.unmodifiableList(agents); }
    public boolean moreAgents() { return moreAgents; }
    public int waitingHandoffs() { return waiting.size(); }
    public int rememberedHandoffIds() { return handoffIds.size(); }
    public int openLegacyCalls() { return openCalls.size(); }
    public long duplicateTurns() { return duplicateTurns; }
    public long duplicateHandoffs() { return duplicateHandoffs; }
    public long lastEventMillis() { return lastEventMillis; }
    public long closedAtMillis() { return closedAtMillis; }
    public boolean compacting() { return compaction; }
}
