package dev.baton.engine.state;

import dev.baton.engine.model.Role;
import dev.baton.engine.policy.Policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The transcript window (R5): the head (the first USER turn and the first ASSISTANT turn after it, kept whole), the
 * body turns any future snapshot can still show (each its own stored entry, {@link EntryKind#TURN}), and what
 * compaction dropped from the body ({@link Compacted}: a count, a seq span and digest lines, each line its own entry,
 * {@link EntryKind#DIGEST}).
 *
 * <p>The body is an array of slots in seq order (null once a turn left; repacked when half the slots are empty) with an
 * index for compaction: Fenwick trees of each turn's minimal transcript and brick sizes (the sizes of the turns
 * newer than a slot in O(log n)) and bit sets of the turns that always or never render, so that compaction finds
 * the turns that leave without visiting those that stay ({@link #compact}).
 */
final class Transcript {
    StoredTurn headUser;
    StoredTurn headAssistant;
    Compacted compacted = new Compacted();
    /** Approximate bytes of the stored turns (for the decoded-state cache's weight). */
    long weight;
    StateJournal journal;

    /**
     * Another way for {@link #compact} to find the turns that leave, in place of the index; null (always, outside the
     * engine's own tests): the index. The seam through which {@code CompactionIndexProperties} runs its reference walk
     * (test code) on a state and compares the two.
     */
    BiConsumer<Transcript, Policy> compaction;

    /** Body turns in seq order, null where a turn left; slots {@code [first, end)} may be in use. */
    private StoredTurn[] slots = new StoredTurn[8];
    /** The seq of each slot, also of a slot whose turn left (so that they stay sorted for a binary search). */
    private long[] seqs = new long[8];
    /**
     * Each slot's {@link #minTranscriptChars} and {@link #minBrickChars} without the brick result cap, and for a TOOL
     * turn whose brick size the cap bounds its result's length (else -1): kept when the turn is added (also read
     * back), so that building the index reads these arrays rather than every turn.
     */
    private long[] sizeT = new long[8];
    private long[] sizeB = new long[8];
    private int[] toolLength = new int[8];
    private int first;
    private int end;
    /** Body turns (non-null slots). */
    private int size;

    /**
     * The compaction index: Fenwick trees (1-based, one node per slot) of {@link #minTranscriptChars} and
     * {@link #minBrickChars} and their totals, valid for the brick result cap {@link #indexCap} ({@link #NO_INDEX}:
     * not built, as for a new or read-back state; built from the size arrays, in one pass, by the first
     * {@link #compact} and again when the cap changes); and, always kept, which slots hold a turn whose
     * {@link #presence} is ALWAYS, NEVER or CHANGING.
     */
    private long indexCap = NO_INDEX;
    private static final long NO_INDEX = Long.MIN_VALUE;
    private long[] treeT = NO_TREE;
    private long[] treeB = NO_TREE;
    private static final long[] NO_TREE = new long[1];
    private long bodyT;
    private long bodyB;
    private final BitSet always = new BitSet();
    private final BitSet never = new BitSet();
    private final BitSet changing = new BitSet();
    /** No ALWAYS (NEVER) bit is set below this slot. */
    private int alwaysFrom;
    private int neverFrom;

    /** Adds an applied turn: to the head when it is the head's USER or ASSISTANT turn, else to the body. */
    void add(StoredTurn st) {
        if (st.role == Role.USER && headUser == null) {
            headUser = st;
        } else if (st.role == Role.ASSISTANT && headUser != null && headAssistant == null) {
            headAssistant = st;
        } else {
            append(st);
        }
        weight += st.weight();
        changed(st);
    }

    /** Adds a body turn of a state being read back from its entries (in seq order, after the head turns before it). */
    void addReadBack(StoredTurn st) {
        append(st);
    }

    private void append(StoredTurn st) {
        if (end == slots.length) {
            if (end - size > size) {
                repack();
            } else {
                int n = 2 * slots.length;
                slots = Arrays.copyOf(slots, n);
                seqs = Arrays.copyOf(seqs, n);
                sizeT = Arrays.copyOf(sizeT, n);
                sizeB = Arrays.copyOf(sizeB, n);
                toolLength = Arrays.copyOf(toolLength, n);
                if (indexCap != NO_INDEX) buildIndex((int) indexCap); // the trees grow with the slots
            }
        }
        int i = end++;
        slots[i] = st;
        seqs[i] = st.seq;
        size++;
        sizeT[i] = minTranscriptChars(st);
        boolean capped = alwaysShowsItsResult(st);
        toolLength[i] = capped ? st.text.length() : -1;
        sizeB[i] = capped ? 0 : minBrickChars(st, 0);
        indexPresence(i);
        if (indexCap != NO_INDEX) {
            long b = brickSize(i, (int) indexCap);
            addAt(treeT, i, sizeT[i]);
            addAt(treeB, i, b);
            bodyT += sizeT[i];
            bodyB += b;
        }
    }

    /** Slot {@code i}'s {@link #minBrickChars} under this brick result cap. */
    private long brickSize(int i, int cap) {
        return toolLength[i] < 0 ? sizeB[i] : Math.min(toolLength[i], Math.max(0, cap));
    }

    /** The body turns, oldest first. */
    List<StoredTurn> body() {
        List<StoredTurn> out = new ArrayList<>(size);
        for (int i = first; i < end; i++) if (slots[i] != null) out.add(slots[i]);
        return Collections.unmodifiableList(out);
    }

    /** Each body turn, oldest first. */
    void forEachBody(Consumer<StoredTurn> action) {
        for (int i = first; i < end; i++) if (slots[i] != null) action.accept(slots[i]);
    }

    int bodySize() {
        return size;
    }

    /** Records that a stored turn changed (a legacy result arrived, its trail went to the manifest). */
    void changed(StoredTurn st) {
        if (journal != null) journal.put(EntryKind.TURN, st.seq);
        // Its presence may have changed (a trail manifested); the head's manifest changes its TOOL turns'.
        if (st == headAssistant) {
            for (int i = changing.nextSetBit(0); i >= 0; i = changing.nextSetBit(i + 1)) indexPresence(i);
        } else if (st != headUser) {
            int i = slotOf(st.seq);
            if (i >= 0 && slots[i] == st) indexPresence(i);
        }
    }

    /** The stored head or body turn with this seq, or null. */
    StoredTurn find(long seq) {
        if (headUser != null && headUser.seq == seq) return headUser;
        if (headAssistant != null && headAssistant.seq == seq) return headAssistant;
        int i = slotOf(seq);
        return i < 0 ? null : slots[i];
    }

    /** The slot whose seq is {@code seq} (its turn may have left), or -1. */
    private int slotOf(long seq) {
        if (end > first && seqs[end - 1] == seq) return end - 1; // the newest, the usual case
        int i = Arrays.binarySearch(seqs, first, end, seq);
        return i < 0 ? -1 : i;
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

    /**
     * A TOOL turn that shows its result whatever happens: only an orphan result of a state stored before orphan
     * results were planned by R3 (not trail-bearing). Every other TOOL turn's step can go to the manifest (R3: an
     * orphan result is a trail of its own; a legacy step belongs to its calling turn), and then it renders nothing.
     */
    private static boolean alwaysShowsItsResult(StoredTurn t) {
        return t.role == Role.TOOL && t.answers == null && !t.trailBearing;
    }

    /** Each body TOOL turn answering a legacy call of this calling turn that may still render (a scan of few). */
    void forEachAnswerOf(long callingSeq, Consumer<StoredTurn> action) {
        List<StoredTurn> found = new ArrayList<>();
        for (int i = changing.nextSetBit(0); i >= 0; i = changing.nextSetBit(i + 1)) {
            StoredTurn t = slots[i];
            if (t != null && t.answers != null && t.answers.callingSeq() == callingSeq) found.add(t);
        }
        found.forEach(action);
    }

    Presence presence(StoredTurn t) {
        switch (t.role) {
            case USER, SYSTEM:
                return Presence.ALWAYS;
            case ASSISTANT:
                if (!t.text.isEmpty()) return Presence.ALWAYS;
                return t.trailBearing && !t.manifested ? Presence.CHANGING : Presence.NEVER;
            default:
                if (alwaysShowsItsResult(t)) return Presence.ALWAYS;
                // Its step (an orphan result, or a legacy step) renders until it goes to the manifest (R3).
                return t.manifested ? Presence.NEVER : Presence.CHANGING;
        }
    }

    /**
     * The smallest size a body turn can ever render at in the transcript: its text. Trails can move to the manifest
     * and legacy steps between turns, and a TOOL turn's result goes to the manifest with its trail (R3), but a text
     * never leaves the transcript.
     */
    long minTranscriptChars(StoredTurn t) {
        if (t.role == Role.TOOL) {
            return alwaysShowsItsResult(t) ? t.text.length() : 0;
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
            return alwaysShowsItsResult(t) ? Math.min(t.text.length(), Math.max(0, brickResultCapChars)) : 0;
        }
        // "[seq " + seq + " " + who (at least one character) + "]", then the text.
        long n = 8 + ManifestLine.digits(t.seq) + t.text.length();
        if (t.role == Role.ASSISTANT && t.trailBearing && !t.toolNames.isEmpty()) {
            // Its tool activity always shows in the brick, here or at the TOOL turns answering its legacy calls (all
            // newer than it): a step's call line "[agent called tool({})]" while retained, else the line saying it
            // is not shown, which is longer. (The answering TOOL turns count nothing themselves.)
            int shortest = Integer.MAX_VALUE;
            for (String name : t.toolNames) shortest = Math.min(shortest, name.length());
            n += 1 + 14 + t.agent.length() + shortest;
        }
        return n;
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
     *
     * <p>The newer sizes only shrink along that walk, so the turns it removes are the ALWAYS turns before the first
     * slot whose newer sizes fit both windows and the NEVER turns before the first slot whose newer brick sizes fit
     * the brick's: two searches of the Fenwick trees find those slots, and the bit sets the turns before them, in
     * slot (seq) order as the walk removes them. The cost is O(log n) plus the turns that leave; the result is the
     * walk's (the walk is the tests' reference, {@code ReferenceCompaction}, checked by
     * {@code CompactionIndexProperties}).
     */
    void compact(Policy policy) {
        if (compaction != null) {
            compaction.accept(this, policy);
            return;
        }
        if (size < 2) return;
        long w = window(policy);
        long bw = brickWindow(policy);
        index(policy);
        int newest = end - 1;
        while (slots[newest] == null) newest--;
        // The walk never reaches the newest turn.
        int limitNever = Math.min(firstSlotReaching(treeB, bodyB - bw), newest);
        int limitAlways = Math.min(firstSlotReaching(treeT, bodyT - w), limitNever);
        int a = always.nextSetBit(alwaysFrom);
        int n = never.nextSetBit(neverFrom);
        while (true) {
            boolean takeA = a >= 0 && a < limitAlways;
            boolean takeN = n >= 0 && n < limitNever;
            if (takeA && (!takeN || a < n)) {
                remove(a, policy, true);
                a = always.nextSetBit(a + 1);
            } else if (takeN) {
                remove(n, policy, false);
                n = never.nextSetBit(n + 1);
            } else {
                break;
            }
        }
        alwaysFrom = a < 0 ? end : a;
        neverFrom = n < 0 ? end : n;
        repackIfSparse();
    }

    /**
     * Takes body turn {@code t} out as {@link #compact} does (into the compacted part when {@code digest}), and
     * repacks the slots when half are empty: for a compaction other than the index's ({@link #compaction}).
     */
    void removeForCompaction(StoredTurn t, Policy policy, boolean digest) {
        index(policy);
        int i = slotOf(t.seq);
        if (i < 0 || slots[i] != t) throw new IllegalArgumentException("turn " + t.seq + " is not in the body");
        remove(i, policy, digest);
        repackIfSparse();
    }

    /** Takes a body turn out: from the index and the journal, and into the compacted part when {@code digest}. */
    private void remove(int i, Policy policy, boolean digest) {
        StoredTurn t = slots[i];
        long tT = sizeT[i];
        long tB = brickSize(i, (int) indexCap);
        addAt(treeT, i, -tT);
        addAt(treeB, i, -tB);
        bodyT -= tT;
        bodyB -= tB;
        always.clear(i);
        never.clear(i);
        changing.clear(i);
        slots[i] = null;
        size--;
        while (first < end && slots[first] == null) first++;
        weight -= t.weight();
        if (journal != null) journal.delete(EntryKind.TURN, t.seq);
        if (digest) compacted.add(t.seq, t.digestLine(), policy.digestBudgetChars(), journal); // kept by the turn
    }

    /** Makes the index valid for this policy's brick result cap (a build in O(n) only when it is not). */
    private void index(Policy policy) {
        if (indexCap != policy.brickResultCapChars()) buildIndex(policy.brickResultCapChars());
    }

    private void buildIndex(int cap) {
        int n = slots.length;
        if (treeT.length != n + 1) {
            treeT = new long[n + 1];
            treeB = new long[n + 1];
        } else {
            Arrays.fill(treeT, 0);
            Arrays.fill(treeB, 0);
        }
        indexCap = cap;
        long t = 0;
        long b = 0;
        for (int i = first; i < end; i++) {
            if (slots[i] == null) continue;
            treeT[i + 1] = sizeT[i];
            treeB[i + 1] = brickSize(i, cap);
            t += treeT[i + 1];
            b += treeB[i + 1];
        }
        // Each node adds itself to its parent: the linear-time Fenwick build.
        for (int k = 1; k <= n; k++) {
            int parent = k + (k & -k);
            if (parent <= n) {
                treeT[parent] += treeT[k];
                treeB[parent] += treeB[k];
            }
        }
        bodyT = t;
        bodyB = b;
    }

    /** Files slot {@code i} under its turn's current presence. */
    private void indexPresence(int i) {
        always.clear(i);
        never.clear(i);
        changing.clear(i);
        switch (presence(slots[i])) {
            case ALWAYS -> {
                always.set(i);
                alwaysFrom = Math.min(alwaysFrom, i);
            }
            case NEVER -> {
                never.set(i);
                neverFrom = Math.min(neverFrom, i);
            }
            default -> changing.set(i);
        }
    }

    private static void addAt(long[] tree, int slot, long v) {
        for (int k = slot + 1; k < tree.length; k += k & -k) tree[k] += v;
    }

    /**
     * The first slot whose sizes, with every older slot's, reach {@code target}: the first slot whose strictly newer
     * turns sum to at most {@code total - target}. 0 when {@code target <= 0}; the slot count when none does.
     */
    private static int firstSlotReaching(long[] tree, long target) {
        if (target <= 0) return 0;
        int n = tree.length - 1;
        int pos = 0;
        for (int step = Integer.highestOneBit(n); step > 0; step >>= 1) {
            int next = pos + step;
            if (next <= n && tree[next] < target) {
                pos = next;
                target -= tree[next];
            }
        }
        return pos;
    }

    /** Repacks the slots once most are empty (amortised O(1) per turn that left). */
    private void repackIfSparse() {
        if (end - size > size + 64) repack();
    }

    private void repack() {
        int j = 0;
        for (int i = first; i < end; i++) {
            if (slots[i] != null) {
                slots[j] = slots[i];
                seqs[j] = seqs[i];
                sizeT[j] = sizeT[i];
                sizeB[j] = sizeB[i];
                toolLength[j] = toolLength[i];
                j++;
            }
        }
        Arrays.fill(slots, j, end, null);
        first = 0;
        end = j;
        always.clear();
        never.clear();
        changing.clear();
        alwaysFrom = 0;
        neverFrom = 0;
        for (int i = 0; i < end; i++) indexPresence(i);
        if (indexCap != NO_INDEX) buildIndex((int) indexCap);
    }

    /** True when the index (if built) equals a walk over the body: for tests. */
    boolean sumsConsistent(Policy policy) {
        if (indexCap == NO_INDEX || indexCap != policy.brickResultCapChars()) return true;
        long t = 0;
        long b = 0;
        for (int i = first; i < end; i++) {
            StoredTurn st = slots[i];
            if (st == null) continue;
            t += minTranscriptChars(st);
            b += minBrickChars(st, policy);
            if (sizeT[i] != minTranscriptChars(st) || brickSize(i, (int) indexCap) != minBrickChars(st, policy)) {
                return false;
            }
            if (prefix(treeT, i) != t || prefix(treeB, i) != b) return false;
            if (presence(st) == Presence.ALWAYS ? !always.get(i) : presence(st) == Presence.NEVER ? !never.get(i)
                    : !changing.get(i)) {
                return false;
            }
            if ((always.get(i) && i < alwaysFrom) || (never.get(i) && i < neverFrom)) return false;
        }
        return t == bodyT && b == bodyB;
    }

    private static long prefix(long[] tree, int slot) {
        long s = 0;
        for (int k = slot + 1; k > 0; k -= k & -k) s += tree[k];
        return s;
    }
}
