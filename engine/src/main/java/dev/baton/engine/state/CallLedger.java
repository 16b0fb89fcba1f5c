package dev.baton.engine.state;

import dev.baton.engine.model.CanonicalArguments;
import dev.baton.engine.policy.Policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The call ledger (docs/rendering.md, "Call ledger"): every tool call the session made that Baton saw, grouped by
 * tool and canonical-arguments hash, the newest {@code call_ledger_entries} groups kept (policy) and the older ones
 * only counted. Unlike the transcript and the trail ledger it does not forget a call when its turn leaves the
 * window: only the bound drops groups, and the snapshot says how many.
 *
 * <p>Stored as one {@link EntryKind#LEDGER} entry per group (number: its ordinal, from 1) and one for the counters
 * (number 0), so that one call writes its group and the counters, never the whole ledger. A group created when the
 * ledger is full takes the stored place of the group it pushes out ({@link EntryKind#LEDGER_SLOT}, see
 * {@link CallGroup#slot}): a full ledger's new call writes one entry over another rather than a new key and a
 * tombstone.
 */
final class CallLedger {
    /** Groups by key (tool, NUL, arguments hash), oldest newest-call first (a call moves its group to the end). */
    final LinkedHashMap<String, CallGroup> groups = new LinkedHashMap<>();
    final Map<Long, CallGroup> byOrdinal = new HashMap<>();
    /** The groups stored in a slot ({@link EntryKind#LEDGER_SLOT}), by slot. */
    final Map<Long, CallGroup> bySlot = new HashMap<>();
    /**
     * Not stored: the group key of each legacy call recorded UNANSWERED since the state was loaded, by call id, so that
     * its answer finds the group without canonicalising and hashing the arguments again; a call id missing here (the
     * state was reloaded, or the memo was cleared past {@value #ANSWERING_LIMIT}) is hashed again, to the same key.
     */
    private final Map<String, Recorded> answering = new HashMap<>();

    /** A legacy call's tool and arguments (the same strings its open call keeps) and its group key. */
    private record Recorded(String tool, String arguments, String key) {
    }
    private static final int ANSWERING_LIMIT = 256;
    long nextOrdinal = 1;
    /** Calls counted so far (each call stamps its group's {@code lastCall}). */
    long calls;
    long droppedEntries;
    long droppedCalls;
    StateJournal journal;

    /** The entry number of the counters. */
    static final long COUNTERS = 0;

    static String key(String tool, String argumentsSha256) {
        return tool + '\u0000' + argumentsSha256;
    }

    /** Records a call (a trail step, or a legacy call with status UNANSWERED) and bounds the ledger. */
    void record(long seq, String agent, String callId, String tool, String arguments, CallStatus status,
                String result, Policy policy) {
        String sha = CanonicalArguments.sha256(arguments);
        String key = key(tool, sha);
        CallGroup g = groups.remove(key);
        if (g == null) {
            g = new CallGroup();
            g.ordinal = nextOrdinal++;
            g.tool = tool;
            g.argumentsSha256 = sha;
            g.firstSeq = seq;
            byOrdinal.put(g.ordinal, g);
            int bound = policy.callLedgerEntries();
            if (bound > 0 && groups.size() >= bound) {
                // Full: the oldest group is dropped now rather than by bound() below (the same group, the new one
                // being the newest), and the new group takes its stored place: one record overwrites it, where a
                // new key would cost a put and the dropped key a tombstone.
                CallGroup oldest = groups.values().iterator().next();
                drop(oldest);
                g.slot = oldest.slot > 0 ? oldest.slot : oldest.ordinal;
                bySlot.put(g.slot, g);
                if (journal != null && oldest.slot == 0) journal.delete(EntryKind.LEDGER, oldest.ordinal);
                countersChanged();
            }
        }
        groups.put(key, g); // the newest group now
        if (callId != null && status == CallStatus.UNANSWERED && tool != null && arguments != null) {
            if (answering.size() >= ANSWERING_LIMIT) answering.clear(); // calls never answered must not pile up
            answering.put(callId, new Recorded(tool, arguments, key));
        }
        g.lastCall = ++calls;
        g.count(status, 1);
        g.seq = seq;
        g.agent = agent;
        g.callId = callId;
        g.status = status;
        boolean hasResult = status == CallStatus.OK || status == CallStatus.ERROR;
        g.resultSha256 = hasResult ? CanonicalArguments.sha256Utf8(result == null ? "" : result) : null;
        g.resultBytes = hasResult ? Utf8.length(result) : 0;
        g.argumentsExcerpt = policy.isSideEffecting(tool) ? excerpt(arguments) : null;
        changed(g);
        bound(policy.callLedgerEntries());
    }

    private static String excerpt(String arguments) {
        if (arguments == null) return "{}";
        if (arguments.length() <= CallGroup.ARGUMENTS_EXCERPT_CHARS) return arguments;
        int cut = CallGroup.ARGUMENTS_EXCERPT_CHARS;
        if (Character.isHighSurrogate(arguments.charAt(cut - 1))) cut--; // never half a character
        return arguments.substring(0, cut) + "…";
    }

    /** A legacy call's TOOL turn arrived: the call is answered (OK) with {@code result}. */
    void answer(String callId, String tool, String arguments, String result) {
        // the key its call was recorded under, when recorded since the state was loaded (else computed again)
        Recorded memo = callId == null ? null : answering.remove(callId);
        String key = memo != null && memo.tool().equals(tool) && memo.arguments().equals(arguments) ? memo.key()
                : key(tool, CanonicalArguments.sha256(arguments));
        CallGroup g = groups.get(key);
        if (g == null || g.unanswered == 0) return; // its group was dropped: it is only counted
        g.unanswered--;
        g.ok++;
        if (callId != null && callId.equals(g.callId) && g.status == CallStatus.UNANSWERED) {
            g.status = CallStatus.OK;
            g.resultSha256 = CanonicalArguments.sha256Utf8(result == null ? "" : result);
            g.resultBytes = Utf8.length(result);
        }
        changed(g);
    }

    /** Drops the groups with the oldest newest call past {@code bound}, counting them. */
    void bound(int bound) {
        Iterator<CallGroup> it = groups.values().iterator();
        int excess = groups.size() - Math.max(0, bound);
        boolean dropped = false;
        while (excess-- > 0) {
            CallGroup g = it.next();
            it.remove();
            forget(g);
            if (journal != null) journal.delete(kindOf(g), numberOf(g));
            dropped = true;
        }
        if (dropped) countersChanged();
    }

    /** Drops a kept group, counting it; its stored entry is the caller's. */
    private void drop(CallGroup g) {
        groups.remove(key(g.tool, g.argumentsSha256));
        forget(g);
    }

    private void forget(CallGroup g) {
        byOrdinal.remove(g.ordinal);
        if (g.slot > 0) bySlot.remove(g.slot);
        droppedEntries++;
        droppedCalls += g.count();
    }

    /** The kind of the entry a group is stored as. */
    static EntryKind kindOf(CallGroup g) {
        return g.slot > 0 ? EntryKind.LEDGER_SLOT : EntryKind.LEDGER;
    }

    /** The number of the entry a group is stored as. */
    static long numberOf(CallGroup g) {
        return g.slot > 0 ? g.slot : g.ordinal;
    }

    /** The group stored as this entry, or null. */
    CallGroup stored(EntryKind kind, long number) {
        CallGroup g = kind == EntryKind.LEDGER_SLOT ? bySlot.get(number) : byOrdinal.get(number);
        return g == null || kindOf(g) != kind ? null : g;
    }

    /** The groups, newest first. */
    List<CallGroup> newestFirst() {
        List<CallGroup> out = new ArrayList<>(groups.values());
        java.util.Collections.reverse(out);
        return out;
    }

    boolean isEmpty() {
        return groups.isEmpty() && droppedEntries == 0;
    }

    private void changed(CallGroup g) {
        if (journal != null) journal.put(kindOf(g), numberOf(g));
        countersChanged();
    }

    private void countersChanged() {
        if (journal != null) journal.put(EntryKind.LEDGER, COUNTERS);
    }

    /** After a read-back: the groups in newest-call order. */
    void readBack(List<CallGroup> read) {
        read.sort(java.util.Comparator.comparingLong((CallGroup g) -> g.lastCall));
        for (CallGroup g : read) {
            groups.put(key(g.tool, g.argumentsSha256), g);
            byOrdinal.put(g.ordinal, g);
            if (g.slot > 0) bySlot.put(g.slot, g);
        }
    }
}
