package dev.baton.engine.state;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.snapshot.InputRange;

import java.util.ArrayList;
import java.util.List;

/**
 * The stored format of a session's state, version {@value #VERSION}: an explicit binary layout, written and read
 * field by field in the order below (primitives in {@link Binary}: zig-zag varints, length-prefixed UTF-8 with -1
 * for null, one-byte booleans, counted lists). Every value starts with the version byte; a reader refuses a version
 * it does not know rather than misread it. Version 2 values are read as well: the entries' layouts are the same in
 * 2 and 3, and a version-2 skeleton is a version-3 skeleton without its last field, the input range (which version 2
 * kept in a store of its own; the processor takes it from there once, see docs/state-format.md). Version 1 (the
 * single JSON blob of Baton before per-turn entries) is read by {@link LegacyBlobV1} and migrated (see
 * docs/operations.md, "Stored state"). Renaming a Java field changes nothing here: the layout is this code and
 * docs/state-format.md, and {@code StoredFormatGoldenTest} decodes committed bytes of every version.
 *
 * <pre>
 * skeleton   := 3 ordering transcript ledger actors handoffs counters input
 * ordering   := nextSeq lastAppliedSeq firstAppliedSeq turnCount heldBytes heldSinceMillis
 *               count (from to count)* bool[olderMissing] (from to count)?
 * transcript := headUserSeq headAssistantSeq compactedCount compactedFrom compactedTo lineChars bool[overflow]
 * ledger     := manifestUnlisted nextCallOrdinal
 * actors     := str?[primary] str?[firstActor] bool[anotherActed] strs[agents] bool[moreAgents]
 * handoffs   := firstIdOrdinal nextIdOrdinal duplicateHandoffs count waiting*
 * waiting    := handoff occurredAtMillis parkedAtMillis
 * handoff    := str[id] str?[from] str[to] byte[target] str?[brief] bool (asOfSeq)? bool (budget)?
 * counters   := duplicateTurns lastEventMillis closedAtMillis bool[compaction]
 * input      := byte[flags: 1 Kafka half, 2 line half] (str[topic] partition firstOffset lastOffset)?
 *               (firstLine lastLine)?                                  (absent in version 2)
 *
 * TURN   := 3 seq str[agent] byte[role] str[text] bool (count step*)? bool (count call*)? strs[toolNames]
 *           bool[trailBearing] bool[manifested] bool (callingSeq str[agent] str?[callId] str[tool] str[args])?
 *           str?[toolCallId]
 * step   := str?[callId] str[tool] str[arguments] str?[result] byte[status]
 * call   := str?[callId] str[tool] str[arguments] str?[result] answeredBySeq
 * HELD   := 3 seq str[agent] byte[role] str[text] count step* count (str?[callId] str[tool] str[args])*
 *           str?[toolCallId] str?[provider] str?[model]
 * DIGEST := 3 seq str[line]
 * TRAIL  := 3 seq str[agent] strs[toolNames] bytes bool[manifested]
 * CALL   := 3 ordinal callingSeq str[agent] str[callId] str[tool] str[arguments]
 * LEDGER := 3 0 nextOrdinal calls droppedEntries droppedCalls                    (number 0: the counters)
 *         | 3 ordinal lastCall str[tool] str[argumentsSha256] ok error cleared unanswered firstSeq
 *           seq str[agent] str?[callId] byte[status] str?[resultSha256] resultBytes str?[argumentsExcerpt]
 *                                                                                 (number n: a group)
 * </pre>
 * LEDGER entries (the call ledger) came after version 3 was released, as an entry kind of their own so that no
 * existing layout changed: a state without them reads as an empty ledger. Call status bytes: OK 0, ERROR 1,
 * CLEARED 2, UNANSWERED 3.
 * (Entries of version 2 are the same with a leading 2.) Enum bytes are fixed here, not Java ordinals: role USER 0,
 * ASSISTANT 1, SYSTEM 2, TOOL 3; status OK 0, ERROR 1, CLEARED 2; target LOCAL 0, CLAUDE_CLI 1.
 */
public final class StateFormat {
    public static final byte VERSION = 3;
    /** The previous version, still read: the same entries, and a skeleton without the input range. */
    public static final byte VERSION_2 = 2;

    private StateFormat() {
    }

    /** The first byte of a stored value: its format version. */
    public static int versionOf(byte[] value) {
        if (value == null || value.length == 0) throw new IllegalArgumentException("empty stored state");
        return value[0];
    }

    private static Binary.Reader reader(byte[] value, String what) {
        int v = versionOf(value);
        if (v != VERSION && v != VERSION_2) {
            throw new IllegalStateException(what + " format version " + v + " is not supported here (expected "
                    + VERSION + " or " + VERSION_2 + "); see docs/operations.md, \"Stored state\"");
        }
        return new Binary.Reader(value, 1);
    }

    // ---------------------------------------------------------------------------------------------------- skeleton

    /** A decoded skeleton: the state without its entries, and the seqs of the head turns (-1 when none). */
    record Skeleton(SessionState state, long headUserSeq, long headAssistantSeq) {
    }

    static byte[] encodeSkeleton(SessionState s) {
        Binary.Writer w = new Binary.Writer(256).raw(VERSION);
        Ordering o = s.ordering;
        w.num(o.nextSeq).num(o.lastAppliedSeq).num(o.firstAppliedSeq).num(o.turnCount).num(o.heldBytes)
                .num(o.heldSinceMillis);
        w.num(o.missing.size());
        for (MissingRange r : o.missing) range(w, r);
        w.bool(o.olderMissing != null);
        if (o.olderMissing != null) range(w, o.olderMissing);
        Transcript t = s.transcript;
        Compacted c = t.compacted;
        w.num(t.headUser == null ? -1 : t.headUser.seq).num(t.headAssistant == null ? -1 : t.headAssistant.seq)
                .num(c.count).num(c.fromSeq).num(c.toSeq).num(c.lineChars).bool(c.overflow);
        w.num(s.ledger.manifestUnlisted).num(s.ledger.nextCallOrdinal);
        Actors a = s.actors;
        w.str(a.primaryAgent).str(a.firstActor).bool(a.anotherActorActed).strs(a.agents).bool(a.moreAgents);
        HandoffQueue h = s.handoffs;
        w.num(h.firstIdOrdinal).num(h.nextIdOrdinal).num(h.duplicateHandoffs).num(h.waiting.size());
        for (HandoffQueue.WaitingHandoff wh : h.waiting) {
            handoff(w, wh.handoff());
            w.num(wh.occurredAtMillis()).num(wh.parkedAtMillis());
        }
        w.num(s.duplicateTurns).num(s.lastEventMillis).num(s.closedAtMillis).bool(s.compaction);
        input(w, s.inputRange);
        return w.bytes();
    }

    static Skeleton decodeSkeleton(byte[] bytes) {
        Binary.Reader r = reader(bytes, "session skeleton");
        SessionState s = new SessionState();
        Ordering o = s.ordering;
        o.nextSeq = r.num();
        o.lastAppliedSeq = r.num();
        o.firstAppliedSeq = r.num();
        o.turnCount = r.num();
        o.heldBytes = r.num();
        o.heldSinceMillis = r.num();
        for (int i = 0, n = r.count(); i < n; i++) o.missing.add(range(r));
        if (r.bool()) o.olderMissing = range(r);
        long headUser = r.num();
        long headAssistant = r.num();
        Compacted c = s.transcript.compacted;
        c.count = r.num();
        c.fromSeq = r.num();
        c.toSeq = r.num();
        c.lineChars = r.num();
        c.overflow = r.bool();
        s.ledger.manifestUnlisted = r.num();
        s.ledger.nextCallOrdinal = r.num();
        Actors a = s.actors;
        a.primaryAgent = r.str();
        a.firstActor = r.str();
        a.anotherActorActed = r.bool();
        a.agents.addAll(r.strs());
        a.moreAgents = r.bool();
        HandoffQueue h = s.handoffs;
        h.firstIdOrdinal = r.num();
        h.nextIdOrdinal = r.num();
        h.duplicateHandoffs = r.num();
        for (int i = 0, n = r.count(); i < n; i++) {
            Handoff hf = handoff(r);
            h.waiting.add(new HandoffQueue.WaitingHandoff(hf, r.num(), r.num()));
        }
        s.duplicateTurns = r.num();
        s.lastEventMillis = r.num();
        s.closedAtMillis = r.num();
        s.compaction = r.bool();
        if (versionOf(bytes) >= VERSION) s.inputRange = input(r);
        r.end();
        return new Skeleton(s, headUser, headAssistant);
    }

    private static void input(Binary.Writer w, InputRange p) {
        if (p == null) {
            w.raw(0);
            return;
        }
        boolean kafka = p.topic() != null;
        boolean lines = p.firstLine() != null;
        w.raw((kafka ? 1 : 0) | (lines ? 2 : 0));
        if (kafka) w.str(p.topic()).num(p.partition()).num(p.firstOffset()).num(p.lastOffset());
        if (lines) w.num(p.firstLine()).num(p.lastLine());
    }

    private static InputRange input(Binary.Reader r) {
        int flags = r.raw();
        if (flags > 3) throw new IllegalArgumentException("bad input range flags " + flags);
        if (flags == 0) return null;
        String topic = null;
        Integer partition = null;
        Long firstOffset = null, lastOffset = null, firstLine = null, lastLine = null;
        if ((flags & 1) != 0) {
            topic = r.str();
            partition = (int) r.num();
            firstOffset = r.num();
            lastOffset = r.num();
        }
        if ((flags & 2) != 0) {
            firstLine = r.num();
            lastLine = r.num();
        }
        return new InputRange(topic, partition, firstOffset, lastOffset, firstLine, lastLine);
    }

    private static void range(Binary.Writer w, MissingRange r) {
        w.num(r.from()).num(r.to()).num(r.count());
    }

    private static MissingRange range(Binary.Reader r) {
        return new MissingRange(r.num(), r.num(), r.num());
    }

    private static void handoff(Binary.Writer w, Handoff h) {
        w.str(h.handoffId()).str(h.fromAgent()).str(h.toAgent()).raw(h.target() == Target.CLAUDE_CLI ? 1 : 0)
                .str(h.brief()).bool(h.asOfSeq() != null);
        if (h.asOfSeq() != null) w.num(h.asOfSeq());
        w.bool(h.messageBudgetChars() != null);
        if (h.messageBudgetChars() != null) w.num(h.messageBudgetChars());
    }

    private static Handoff handoff(Binary.Reader r) {
        String id = r.str();
        String from = r.str();
        String to = r.str();
        Target target = switch (r.raw()) {
            case 0 -> Target.LOCAL;
            case 1 -> Target.CLAUDE_CLI;
            default -> throw new IllegalArgumentException("bad target byte");
        };
        String brief = r.str();
        Long asOf = r.bool() ? r.num() : null;
        Integer budget = r.bool() ? (int) r.num() : null;
        return new Handoff(id, from, to, target, brief, asOf, budget);
    }

    // ---------------------------------------------------------------------------------------------------- entries

    static byte[] encodeTurn(StoredTurn t) {
        Binary.Writer w = new Binary.Writer(sizeHint(t)).raw(VERSION);
        w.num(t.seq).str(t.agent).raw(role(t.role)).str(t.text);
        w.bool(t.trail != null);
        if (t.trail != null) {
            w.num(t.trail.size());
            for (ToolStep s : t.trail) step(w, s);
        }
        w.bool(t.calls != null);
        if (t.calls != null) {
            w.num(t.calls.size());
            for (StoredTurn.LegacyCall c : t.calls) {
                w.str(c.callId).str(c.tool).str(c.arguments).str(c.result).num(c.answeredBySeq);
            }
        }
        w.strs(t.toolNames).bool(t.trailBearing).bool(t.manifested).bool(t.answers != null);
        if (t.answers != null) {
            StoredTurn.ResolvedCall a = t.answers;
            w.num(a.callingSeq()).str(a.callingAgent()).str(a.callId()).str(a.tool()).str(a.arguments());
        }
        w.str(t.toolCallId);
        return w.bytes();
    }

    /** About the encoded size of a turn entry (exact for ASCII text, so the buffer is rarely grown or copied). */
    private static int sizeHint(StoredTurn t) {
        long n = 64 + t.text.length();
        if (t.trail != null) {
            for (ToolStep s : t.trail) {
                n += 24 + len(s.tool()) + len(s.arguments()) + len(s.result()) + len(s.callId());
            }
        }
        if (t.calls != null) {
            for (StoredTurn.LegacyCall c : t.calls) {
                n += 24 + len(c.callId) + len(c.tool) + len(c.arguments) + len(c.result);
            }
        }
        return (int) Math.min(n, 1 << 24);
    }

    private static int len(String s) {
        return s == null ? 0 : s.length();
    }

    static StoredTurn decodeTurn(byte[] bytes) {
        Binary.Reader r = reader(bytes, "turn entry");
        StoredTurn t = new StoredTurn();
        t.seq = r.num();
        t.agent = r.str();
        t.role = role(r.raw());
        t.text = r.str();
        if (r.bool()) {
            int n = r.count();
            t.trail = new ArrayList<>(n);
            for (int i = 0; i < n; i++) t.trail.add(step(r));
        }
        if (r.bool()) {
            int n = r.count();
            t.calls = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                StoredTurn.LegacyCall c = new StoredTurn.LegacyCall(r.str(), r.str(), r.str());
                c.result = r.str();
                c.answeredBySeq = r.num();
                t.calls.add(c);
            }
        }
        t.toolNames = new ArrayList<>(r.strs());
        t.trailBearing = r.bool();
        t.manifested = r.bool();
        if (r.bool()) t.answers = new StoredTurn.ResolvedCall(r.num(), r.str(), r.str(), r.str(), r.str());
        t.toolCallId = r.str();
        r.end();
        return t;
    }

    static byte[] encodeHeld(Turn t) {
        Binary.Writer w = new Binary.Writer(64 + t.text().length()).raw(VERSION);
        w.num(t.seq()).str(t.agent()).raw(role(t.role())).str(t.text()).num(t.trail().size());
        for (ToolStep s : t.trail()) step(w, s);
        w.num(t.toolCalls().size());
        for (ToolCall c : t.toolCalls()) w.str(c.callId()).str(c.tool()).str(c.arguments());
        w.str(t.toolCallId()).str(t.provider()).str(t.model());
        return w.bytes();
    }

    static Turn decodeHeld(byte[] bytes) {
        Binary.Reader r = reader(bytes, "held turn entry");
        long seq = r.num();
        String agent = r.str();
        Role role = role(r.raw());
        String text = r.str();
        int n = r.count();
        List<ToolStep> trail = new ArrayList<>(n);
        for (int i = 0; i < n; i++) trail.add(step(r));
        n = r.count();
        List<ToolCall> calls = new ArrayList<>(n);
        for (int i = 0; i < n; i++) calls.add(new ToolCall(r.str(), r.str(), r.str()));
        Turn t = new Turn(seq, agent, role, text, trail, calls, r.str(), r.str(), r.str());
        r.end();
        return t;
    }

    static byte[] encodeDigest(long seq, String line) {
        return new Binary.Writer(16 + line.length()).raw(VERSION).num(seq).str(line).bytes();
    }

    /** A digest line entry: its seq and line. */
    record DigestEntry(long seq, String line) {
    }

    static DigestEntry decodeDigest(byte[] bytes) {
        Binary.Reader r = reader(bytes, "digest line entry");
        DigestEntry d = new DigestEntry(r.num(), r.str());
        r.end();
        return d;
    }

    static byte[] encodeTrail(TrailEntry e) {
        return new Binary.Writer(64).raw(VERSION).num(e.seq).str(e.agent).strs(e.toolNames).num(e.bytes)
                .bool(e.manifested).bytes();
    }

    static TrailEntry decodeTrail(byte[] bytes) {
        Binary.Reader r = reader(bytes, "trail entry");
        TrailEntry e = new TrailEntry(r.num(), r.str(), r.strs(), r.num());
        e.manifested = r.bool();
        r.end();
        return e;
    }

    static byte[] encodeCall(TrailLedger.OpenCall c) {
        return new Binary.Writer(64).raw(VERSION).num(c.ordinal()).num(c.callingSeq()).str(c.agent()).str(c.callId())
                .str(c.tool()).str(c.arguments()).bytes();
    }

    static TrailLedger.OpenCall decodeCall(byte[] bytes) {
        Binary.Reader r = reader(bytes, "open call entry");
        TrailLedger.OpenCall c = new TrailLedger.OpenCall(r.num(), r.num(), r.str(), r.str(), r.str(), r.str());
        r.end();
        return c;
    }

    // ---------------------------------------------------------------------------------------------- call ledger

    static byte[] encodeLedgerCounters(CallLedger l) {
        return new Binary.Writer(24).raw(VERSION).num(0).num(l.nextOrdinal).num(l.calls).num(l.droppedEntries)
                .num(l.droppedCalls).bytes();
    }

    static byte[] encodeLedgerGroup(CallGroup g) {
        return new Binary.Writer(192).raw(VERSION).num(g.ordinal).num(g.lastCall).str(g.tool).str(g.argumentsSha256)
                .num(g.ok).num(g.error).num(g.cleared).num(g.unanswered).num(g.firstSeq)
                .num(g.seq).str(g.agent).str(g.callId).raw(g.status.code()).str(g.resultSha256)
                .num(g.resultBytes).str(g.argumentsExcerpt).bytes();
    }

    /** Reads a LEDGER entry into {@code ledger}: its counters, or returns the group (null for the counters). */
    static CallGroup decodeLedger(byte[] bytes, CallLedger ledger) {
        Binary.Reader r = reader(bytes, "call ledger entry");
        long ordinal = r.num();
        if (ordinal == CallLedger.COUNTERS) {
            ledger.nextOrdinal = r.num();
            ledger.calls = r.num();
            ledger.droppedEntries = r.num();
            ledger.droppedCalls = r.num();
            return null;
        }
        CallGroup g = new CallGroup();
        g.ordinal = ordinal;
        g.lastCall = r.num();
        g.tool = r.str();
        g.argumentsSha256 = r.str();
        g.ok = r.num();
        g.error = r.num();
        g.cleared = r.num();
        g.unanswered = r.num();
        g.firstSeq = r.num();
        g.seq = r.num();
        g.agent = r.str();
        g.callId = r.str();
        g.status = CallStatus.ofCode(r.raw());
        g.resultSha256 = r.str();
        g.resultBytes = r.num();
        g.argumentsExcerpt = r.str();
        return g;
    }

    private static void step(Binary.Writer w, ToolStep s) {
        w.str(s.callId()).str(s.tool()).str(s.arguments()).str(s.result()).raw(switch (s.status()) {
            case OK -> 0;
            case ERROR -> 1;
            case CLEARED -> 2;
        });
    }

    private static ToolStep step(Binary.Reader r) {
        String callId = r.str();
        String tool = r.str();
        String args = r.str();
        String result = r.str();
        StepStatus status = switch (r.raw()) {
            case 0 -> StepStatus.OK;
            case 1 -> StepStatus.ERROR;
            case 2 -> StepStatus.CLEARED;
            default -> throw new IllegalArgumentException("bad step status byte");
        };
        return new ToolStep(callId, tool, args, result, status);
    }

    private static int role(Role role) {
        return switch (role) {
            case USER -> 0;
            case ASSISTANT -> 1;
            case SYSTEM -> 2;
            case TOOL -> 3;
        };
    }

    private static Role role(int b) {
        return switch (b) {
            case 0 -> Role.USER;
            case 1 -> Role.ASSISTANT;
            case 2 -> Role.SYSTEM;
            case 3 -> Role.TOOL;
            default -> throw new IllegalArgumentException("bad role byte " + b);
        };
    }
}
