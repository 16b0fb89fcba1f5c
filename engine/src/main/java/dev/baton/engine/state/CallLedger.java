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
    /** The last group of {@link #groups} (the newest call's), null when there is none. */
    private CallGroup newest;
    /** Whether the counters entry (LEDGER 0) is stored now (read back, or written since). */
    boolean countersStored;

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
                if (journal != null && oldest.slot == 0) journal.delete(EntryKind.LEDGER, oldest.ordinal);
            } else {
                g.slot = g.ordinal; // a new place: the ordinal was never anyone's key nor slot
            }
            bySlot.put(g.slot, g);
        }
        groups.put(key, g); // the newest group now
        newest = g;
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
        // the counters after this call, stored with the group (the newest one's are the ledger's, see countersChanged)
        g.nextOrdinalThen = nextOrdinal;
        g.droppedEntriesThen = droppedEntries;
        g.droppedCallsThen = droppedCalls;
        countersChanged();
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
        // only the group: an answer changes no counter
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
        if (groups.isEmpty()) newest = null; // else the newest is kept: only a bound of 0 drops it
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

    /** Journals a changed group; a group read back from a LEDGER entry moves to a slot of its own (its ordinal). */
    private void changed(CallGroup g) {
        if (g.slot == 0) {
            if (journal != null) journal.delete(EntryKind.LEDGER, g.ordinal);
            g.slot = g.ordinal;
            g.nextOrdinalThen = nextOrdinal;
            g.droppedEntriesThen = droppedEntries;
            g.droppedCallsThen = droppedCalls;
            bySlot.put(g.slot, g);
            if (g == newest) countersChanged(); // its entry holds the counters now: the counters entry goes
        }
        if (journal != null) journal.put(kindOf(g), numberOf(g));
    }

    /**
     * Where the counters are stored (issue 22: not an entry rewritten per call): in the newest group's entry, which
     * every call writes anyway ({@link CallGroup#nextOrdinalThen}: the counters as of its newest call, which are the
     * ledger's as long as it is the newest); in the counters entry (LEDGER 0) only while no group is kept, or while
     * the newest group is one read back from a LEDGER entry (stored without them, before this release).
     */
    private void countersChanged() {
        boolean inEntry = countersInEntry();
        if (journal != null) {
            if (inEntry) journal.put(EntryKind.LEDGER, COUNTERS);
            else if (countersStored) journal.delete(EntryKind.LEDGER, COUNTERS);
        }
        countersStored = inEntry;
    }

    /** Whether the counters need the counters entry (see {@link #countersChanged}). */
    boolean countersInEntry() {
        if (groups.isEmpty()) return calls > 0 || droppedEntries > 0;
        return newest.slot == 0;
    }

    /** After a full write of the state: the counters entry is stored exactly when {@link #countersInEntry}. */
    void writtenWhole() {
        countersStored = countersInEntry();
    }

    /**
     * After a read-back: the groups in newest-call order, and the counters of the newest group when it carries them
     * and is newer than the counters entry (read before, if there was one).
     */
    void readBack(List<CallGroup> read) {
        read.sort(java.util.Comparator.comparingLong((CallGroup g) -> g.lastCall));
        for (CallGroup g : read) {
            groups.put(key(g.tool, g.argumentsSha256), g);
            byOrdinal.put(g.ordinal, g);
            if (g.slot > 0) bySlot.put(g.slot, g);
        }
        if (!read.isEmpty()) {
            newest = read.get(read.size() - 1);
            if (newest.slot > 0 && newest.lastCall > calls) {
                calls = newest.lastCall;
                nextOrdinal = newest.nextOrdinalThen;
                droppedEntries = newest.droppedEntriesThen;
                droppedCalls = newest.droppedCallsThen;
            }
            for (CallGroup g : read) {
                if (g.slot == 0) { // stored before this release: as if its counters were the ledger's now
                    g.nextOrdinalThen = nextOrdinal;
                    g.droppedEntriesThen = droppedEntries;
                    g.droppedCallsThen = droppedCalls;
                }
            }
        }
    }
}
