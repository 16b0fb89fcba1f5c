package dev.baton.engine.state;

import dev.baton.engine.model.Role;
import dev.baton.engine.policy.Policy;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The transcript window (R5): the head (the first USER turn and the first ASSISTANT turn after it, kept whole), the
 * body turns any future snapshot can still show (each its own stored entry, {@link EntryKind#TURN}), and what
 * compaction dropped from the body ({@link Compacted}: a count, a seq span and digest lines, each line its own entry,
 * {@link EntryKind#DIGEST}).
 */
final class Transcript {
    StoredTurn headUser;
    StoredTurn headAssistant;
    final ArrayDeque<StoredTurn> body = new ArrayDeque<>();
    Compacted compacted = new Compacted();
    /** Approximate bytes of the stored turns (for the decoded-state cache's weight). */
    long weight;
    StateJournal journal;
    /**
     * Running sums over {@link #body} of {@link #minTranscriptChars} and {@link #minBrickChars} (not stored: kept while
     * the state lives), so that compaction does not walk the whole body on every turn. Valid for the brick result cap
     * {@link #sumsCap}; {@link #NO_SUMS} when not computed yet (a new or read-back state: see {@link #pendingT}) and
     * recomputed once when a policy with another cap comes.
     */
    private long bodyT;
    private long bodyB;
    private long sumsCap = NO_SUMS;
    private static final long NO_SUMS = Long.MIN_VALUE;
    /**
     * Until the sums are valid for a cap (a new or read-back state), what they are made of without the cap: the
     * transcript sizes, the brick sizes of the turns the cap does not touch, and the sum and longest of the TOOL
     * results it does, over the {@link #pendingCount} body turns added since. The first {@link #compact} takes the
     * sums from them without a walk over the body.
     */
    private long pendingT;
    private long pendingFixedB;
    private long pendingToolChars;
    private int pendingToolMax;
    private int pendingCount;
    /** The lengths of those TOOL results, for a cap shorter than the longest ({@link #pendingTools} of them). */
    private int[] pendingToolLengths = NO_LENGTHS;
    private int pendingTools;
    private static final int[] NO_LENGTHS = new int[0];

    /** Adds an applied turn: to the head when it is the head's USER or ASSISTANT turn, else to the body. */
    void add(StoredTurn st) {
        if (st.role == Role.USER && headUser == null) {
            headUser = st;
        } else if (st.role == Role.ASSISTANT && headUser != null && headAssistant == null) {
            headAssistant = st;
        } else {
            body.addLast(st);
            if (sumsCap != NO_SUMS) {
                bodyT += minTranscriptChars(st);
                bodyB += minBrickChars(st, (int) sumsCap);
            } else {
                pend(st);
            }
        }
        weight += st.weight();
        changed(st);
    }

    /** Adds a body turn of a state being read back from its entries (in seq order, after the head turns before it). */
    void addReadBack(StoredTurn st) {
        body.addLast(st);
        pend(st);
    }

    private void pend(StoredTurn st) {
        pendingT += minTranscriptChars(st);
        if (st.role != Role.TOOL) {
            pendingFixedB += minBrickChars(st, 0); // the cap bounds TOOL results only
        } else if (!answersTheHead(st)) {
            int n = st.text.length();
            pendingToolChars += n;
            pendingToolMax = Math.max(pendingToolMax, n);
            if (pendingTools == pendingToolLengths.length) {
                pendingToolLengths = java.util.Arrays.copyOf(pendingToolLengths, Math.max(16, 2 * pendingTools));
            }
            pendingToolLengths[pendingTools++] = n;
        }
        pendingCount++;
    }

    /** Records that a stored turn changed (a legacy result arrived, its trail went to the manifest). */
    void changed(StoredTurn st) {
        if (journal != null) journal.put(EntryKind.TURN, st.seq);
    }

    /** The stored head or body turn with this seq, or null. */
    StoredTurn find(long seq) {
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
        return minBrickChars(t, policy.brickResultCapChars());
    }

    private long minBrickChars(StoredTurn t, int brickResultCapChars) {
        if (t.role == Role.TOOL) {
            return answersTheHead(t) ? 0 : Math.min(t.text.length(), Math.max(0, brickResultCapChars));
        }
        // "[seq " + seq + " " + who (at least one character) + "]", then the text.
        return 8 + ManifestLine.digits(t.seq) + t.text.length();
    }

    /** The largest window any future hand-off can render: the tenant's transcript budget or the largest brick. */
    static long window(Policy policy) {
        return Math.max(policy.maxTranscriptBudget(), brickWindow(policy));
    }

    static long brickWindow(Policy policy) {
        // The brick raises small budgets to its minimum: its reach is the raised budget, not the configured one.
        return policy.maxBrickBudget();
    }

    /**
     * Compaction (bounded state). Walking from the oldest body turn, with the minimal sizes of the strictly newer
     * turns: a turn that always renders leaves once those newer turns alone exceed every budget (it can only be in
     * the middle again: it becomes a count, a span and a digest line); a turn that never renders again leaves once
     * it is out of the brick's reach; a turn whose presence may still change stays (there are few: retained trails
     * and TOOL turns carried by the head).
     */
    void compact(Policy policy) {
        if (body.size() < 2) return;
        long w = window(policy);
        long bw = brickWindow(policy);
        sums(policy);
        long newerT = bodyT;
        long newerB = bodyB;
        Iterator<StoredTurn> it = body.iterator();
        int left = body.size();
        while (it.hasNext() && left > 1) {
            StoredTurn t = it.next();
            left--;
            long tT = minTranscriptChars(t);
            long tB = minBrickChars(t, policy);
            newerT -= tT;
            newerB -= tB;
            if (newerB <= bw && newerT <= w) break; // nothing newer can leave either
            Presence p = presence(t);
            // The brick caps results, so the brick's reach is checked on its own sizes too.
            if (p == Presence.ALWAYS && newerT > w && newerB > bw) {
                it.remove();
                dropped(t, tT, tB);
                compacted.add(t.seq, DigestLine.of(t), policy.digestBudgetChars(), journal);
            } else if (p == Presence.NEVER && newerB > bw) {
                it.remove();
                dropped(t, tT, tB);
            }
        }
    }

    /** Makes the running sums valid for this policy's brick result cap (a full walk only when they are not). */
    private void sums(Policy policy) {
        if (sumsCap == policy.brickResultCapChars()) return;
        if (sumsCap == NO_SUMS && pendingCount == body.size()) {
            int cap = Math.max(0, policy.brickResultCapChars());
            long tools = pendingToolChars;
            if (pendingToolMax > cap) {
                tools = 0;
                for (int i = 0; i < pendingTools; i++) tools += Math.min(pendingToolLengths[i], cap);
            }
            bodyT = pendingT;
            bodyB = pendingFixedB + tools;
            sumsCap = policy.brickResultCapChars();
            pendingToolLengths = NO_LENGTHS;
            pendingTools = 0;
            return;
        }
        long t = 0;
        long b = 0;
        for (StoredTurn st : body) {
            t += minTranscriptChars(st);
            b += minBrickChars(st, policy);
        }
        bodyT = t;
        bodyB = b;
        sumsCap = policy.brickResultCapChars();
    }

    /** True when the running sums (if computed) equal a walk over the body: for tests. */
    boolean sumsConsistent(Policy policy) {
        if (sumsCap == NO_SUMS || sumsCap != policy.brickResultCapChars()) return true;
        long t = 0;
        long b = 0;
        for (StoredTurn st : body) {
            t += minTranscriptChars(st);
            b += minBrickChars(st, policy);
        }
        return t == bodyT && b == bodyB;
    }

    private void dropped(StoredTurn t, long tT, long tB) {
        bodyT -= tT;
        bodyB -= tB;
        weight -= t.weight();
        if (journal != null) journal.delete(EntryKind.TURN, t.seq);
    }
}
