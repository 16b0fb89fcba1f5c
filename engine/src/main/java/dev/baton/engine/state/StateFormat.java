package dev.baton.engine.state;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.PrefixPrint;

/**
 * The stored format of a session's state, version {@value #VERSION}, and its writer: an explicit binary layout,
 * written field by field in the order below (primitives in {@link Binary}: zig-zag varints, length-prefixed UTF-8
 * with -1 for null, one-byte booleans, counted lists). Every value starts with the version byte. Reading is the
 * readers' job, one per stored version ({@link StateV3Reader} for this one, {@link StateV2Reader},
 * {@link StateV1Reader}), and {@link StateMigrations} brings an older session to this version: a reader refuses a
 * version it does not know rather than misread it (see docs/state-format.md and docs/operations.md, "Stored state").
 * Renaming a Java field changes nothing here: the layout is this code and docs/state-format.md, and
 * {@code StoredFormatGoldenTest} decodes committed bytes of every version.
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
 * PREFIX := 3 ordinal str[receiver] anchorSeq bool[anchorMarker] length fixed64[endHash] count fixed64[blockHash]*
 * LEDGER := 3 0 nextOrdinal calls droppedEntries droppedCalls                    (number 0: the counters)
 *         | 3 group                                                               (number n: a group)
 * group  := ordinal lastCall str[tool] str[argumentsSha256] ok error cleared unanswered firstSeq
 *           seq str[agent] str?[callId] byte[status] str?[resultSha256] resultBytes str?[argumentsExcerpt]
 * LEDGER_SLOT := 3 group nextOrdinal droppedEntries droppedCalls                  (number: the group's slot)
 * </pre>
 * LEDGER_SLOT entries (issue 22, second pass) hold every group written since: keyed by a slot that the group taking
 * a dropped group's place overwrites, and carrying the ledger's counters as of the group's newest call (its
 * {@code lastCall} is the call counter then), so that the newest group's entry holds the ledger's counters and no
 * counters entry is written per call; the counters entry is written only while no group is kept.
 * ({@code fixed64}: 8 bytes big-endian. The PREFIX entry is new in this release, in version 3: no other value
 * changed, so its version stays 3; a reader before it does not know the kind, see docs/state-format.md.)
 * LEDGER entries (the call ledger) came after version 3 was released, as an entry kind of their own so that no
 * existing layout changed: a state without them reads as an empty ledger. Call status bytes: OK 0, ERROR 1,
 * CLEARED 2, UNANSWERED 3.
 * (Entries of version 2 are the same with a leading 2.) Enum bytes are fixed here, not Java ordinals: role USER 0,
 * ASSISTANT 1, SYSTEM 2, TOOL 3; status OK 0, ERROR 1, CLEARED 2; target LOCAL 0, CLAUDE_CLI 1.
 */
public final class StateFormat {
    /** The version written: every value written starts with it. */
    public static final byte VERSION = 3;

    private StateFormat() {
    }

    /** The first byte of a stored value: its format version. */
    public static int versionOf(byte[] value) {
        if (value == null || value.length == 0) throw new IllegalArgumentException("empty stored state");
        return value[0];
    }

    // ---------------------------------------------------------------------------------------------------- skeleton

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

    private static void range(Binary.Writer w, MissingRange r) {
        w.num(r.from()).num(r.to()).num(r.count());
    }

    private static void handoff(Binary.Writer w, Handoff h) {
        w.str(h.handoffId()).str(h.fromAgent()).str(h.toAgent()).raw(h.target() == Target.CLAUDE_CLI ? 1 : 0)
                .str(h.brief()).bool(h.asOfSeq() != null);
        if (h.asOfSeq() != null) w.num(h.asOfSeq());
        w.bool(h.messageBudgetChars() != null);
        if (h.messageBudgetChars() != null) w.num(h.messageBudgetChars());
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

    static byte[] encodeHeld(Turn t) {
        Binary.Writer w = new Binary.Writer(64 + t.text().length()).raw(VERSION);
        w.num(t.seq()).str(t.agent()).raw(role(t.role())).str(t.text()).num(t.trail().size());
        for (ToolStep s : t.trail()) step(w, s);
        w.num(t.toolCalls().size());
        for (ToolCall c : t.toolCalls()) w.str(c.callId()).str(c.tool()).str(c.arguments());
        w.str(t.toolCallId()).str(t.provider()).str(t.model());
        return w.bytes();
    }

    static byte[] encodeDigest(long seq, String line) {
        return new Binary.Writer(16 + line.length()).raw(VERSION).num(seq).str(line).bytes();
    }

    static byte[] encodeTrail(TrailEntry e) {
        return new Binary.Writer(64).raw(VERSION).num(e.seq).str(e.agent).strs(e.toolNames).num(e.bytes)
                .bool(e.manifested).bytes();
    }

    static byte[] encodeCall(TrailLedger.OpenCall c) {
        return new Binary.Writer(64).raw(VERSION).num(c.ordinal()).num(c.callingSeq()).str(c.agent()).str(c.callId())
                .str(c.tool()).str(c.arguments()).bytes();
    }

    static byte[] encodePrefix(PrefixLedger.Remembered r) {
        PrefixPrint p = r.print();
        Binary.Writer w = new Binary.Writer(40 + r.receiver().length() + 8 * p.blockCount()).raw(VERSION)
                .num(r.ordinal()).str(r.receiver()).num(p.anchorSeq()).bool(p.anchorMarker()).num(p.length());
        fixed64(w, p.endHash());
        w.num(p.blockCount());
        for (int i = 0; i < p.blockCount(); i++) fixed64(w, p.block(i));
        return w.bytes();
    }

    /** A hash: 8 bytes, big-endian (a varint of a random 64-bit value would take 9–10). */
    private static void fixed64(Binary.Writer w, long v) {
        for (int shift = 56; shift >= 0; shift -= 8) w.raw((int) (v >>> shift) & 0xFF);
    }

    // ---------------------------------------------------------------------------------------------- call ledger

    static byte[] encodeLedgerCounters(CallLedger l) {
        return new Binary.Writer(24).raw(VERSION).num(0).num(l.nextOrdinal).num(l.calls).num(l.droppedEntries)
                .num(l.droppedCalls).bytes();
    }

    /** A group's entry: a LEDGER group, or (in a slot) a LEDGER_SLOT group, the same followed by its counters. */
    static byte[] encodeLedgerGroup(CallGroup g) {
        Binary.Writer w = new Binary.Writer(200).raw(VERSION).num(g.ordinal).num(g.lastCall).str(g.tool)
                .str(g.argumentsSha256).num(g.ok).num(g.error).num(g.cleared).num(g.unanswered).num(g.firstSeq)
                .num(g.seq).str(g.agent).str(g.callId).raw(g.status.code()).str(g.resultSha256)
                .num(g.resultBytes).str(g.argumentsExcerpt);
        if (g.slot > 0) w.num(g.nextOrdinalThen).num(g.droppedEntriesThen).num(g.droppedCallsThen);
        return w.bytes();
    }


    private static void step(Binary.Writer w, ToolStep s) {
        w.str(s.callId()).str(s.tool()).str(s.arguments()).str(s.result()).raw(switch (s.status()) {
            case OK -> 0;
            case ERROR -> 1;
            case CLEARED -> 2;
        });
    }

    private static int role(Role role) {
        return switch (role) {
            case USER -> 0;
            case ASSISTANT -> 1;
            case SYSTEM -> 2;
            case TOOL -> 3;
        };
    }
}
