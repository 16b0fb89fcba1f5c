package dev.baton.engine.state;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.PrefixPrint;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads format version 3, the current one: the layout {@link StateFormat} writes (its grammar is in that class's
 * Javadoc). The field-by-field readers below are also version 2's ({@link StateV2Reader}): version 3 only added the
 * skeleton's last field, the input range. Entries are read by {@link StateReader}'s methods with the entry field
 * readers here.
 */
final class StateV3Reader implements StateReader {
    static final byte VERSION = 3;
    static final StateV3Reader INSTANCE = new StateV3Reader();

    private StateV3Reader() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public Skeleton skeleton(byte[] value) {
        Binary.Reader r = StateReader.fields(value, VERSION, "session skeleton");
        Skeleton s = skeletonFields(r);
        s.state().inputRange = input(r);
        r.end();
        return s;
    }

    /** A PREFIX entry (new in version 3 and only ever written as version 3: it has no older layout to read). */
    static PrefixLedger.Remembered prefix(byte[] value) {
        Binary.Reader r = StateReader.fields(value, VERSION, "prefix print entry");
        long ordinal = r.num();
        String receiver = r.str();
        long anchor = r.num();
        boolean marker = r.bool();
        long length = r.num();
        long end = fixed64(r);
        long[] blocks = new long[r.count()];
        for (int i = 0; i < blocks.length; i++) blocks[i] = fixed64(r);
        r.end();
        return new PrefixLedger.Remembered(ordinal, receiver, new PrefixPrint(anchor, marker, length, end, blocks));
    }

    /**
     * Reads a LEDGER entry (new in version 3, only ever written as version 3) into {@code ledger}: its counters, or
     * returns the group (null for the counters).
     */
    static CallGroup ledger(byte[] value, CallLedger ledger) {
        Binary.Reader r = StateReader.fields(value, VERSION, "call ledger entry");
        long ordinal = r.num();
        if (ordinal == CallLedger.COUNTERS) {
            ledger.nextOrdinal = r.num();
            ledger.calls = r.num();
            ledger.droppedEntries = r.num();
            ledger.droppedCalls = r.num();
            return null;
        }
        return group(r, ordinal);
    }

    private static CallGroup group(Binary.Reader r, long ordinal) {
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

    /**
     * Reads a LEDGER_SLOT entry: a group stored in slot {@code slot} (the value is a LEDGER group's; a slot never holds
     * the counters).
     */
    static CallGroup ledgerSlot(byte[] value, long slot) {
        Binary.Reader r = StateReader.fields(value, VERSION, "call ledger slot entry");
        long ordinal = r.num();
        if (ordinal <= 0 || slot <= 0) throw new IllegalArgumentException("call ledger slot " + slot + " holds no group");
        CallGroup g = group(r, ordinal);
        g.slot = slot;
        g.nextOrdinalThen = r.num();
        g.droppedEntriesThen = r.num();
        g.droppedCallsThen = r.num();
        r.end();
        return g;
    }

    /** A hash as {@link StateFormat} writes it: 8 bytes, big-endian. */
    private static long fixed64(Binary.Reader r) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = (v << 8) | (r.raw() & 0xFF);
        return v;
    }

    // ---------------------------------------------------------------------------------------------------- skeleton

    /** The skeleton's fields up to the input range (all of a version-2 skeleton's). */
    static Skeleton skeletonFields(Binary.Reader r) {
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
        return new Skeleton(s, headUser, headAssistant);
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

    private static MissingRange range(Binary.Reader r) {
        return new MissingRange(r.num(), r.num(), r.num());
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

    static StoredTurn turnFields(Binary.Reader r) {
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

    static Turn heldFields(Binary.Reader r) {
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

    static DigestEntry digestFields(Binary.Reader r) {
        DigestEntry d = new DigestEntry(r.num(), r.str());
        r.end();
        return d;
    }

    static TrailEntry trailFields(Binary.Reader r) {
        TrailEntry e = new TrailEntry(r.num(), r.str(), r.strs(), r.num());
        e.manifested = r.bool();
        r.end();
        return e;
    }

    static TrailLedger.OpenCall callFields(Binary.Reader r) {
        TrailLedger.OpenCall c = new TrailLedger.OpenCall(r.num(), r.num(), r.str(), r.str(), r.str(), r.str());
        r.end();
        return c;
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
