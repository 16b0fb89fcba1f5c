package dev.baton.engine.layout;

import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StoredTurn;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * One session's render cache: the segments each stored turn laid out into at its last hand-off ({@link TurnLayout}),
 * so that the next hand-off need not lay out, measure and narrate an unchanged turn again (a warm LOCAL render costs
 * about 0.55–0.65× a cold one; benchmarks/README.md). Held by the caller beside the state it belongs to — the
 * processors' decoded-state cache keeps one per decoded state — and passed into {@code ContextEngine.render}: the
 * state itself is never written by a render.
 *
 * <p>Keyed by the stored turn's identity: a state decoded again has new turn objects and starts cold, as it should.
 * An entry is used only while {@link TurnLayout#matches} holds, which includes the turn's
 * {@link StoredTurn#changes()} count at layout time (the state counts every change it makes to a stored turn). Turns
 * that left the state are dropped from the cache once it holds about twice as many entries as the state has turns.
 * Not thread-safe: one session's renders run on one thread.
 */
public final class LayoutCache {
    private static final LayoutCache NONE = new LayoutCache(false);

    private final boolean keeps;
    private final Map<StoredTurn, TurnLayout> layouts = new IdentityHashMap<>();

    /** An empty cache for one session's state. */
    public LayoutCache() {
        this(true);
    }

    private LayoutCache(boolean keeps) {
        this.keeps = keeps;
    }

    /** A cache that keeps nothing: every render lays out every turn (the same output, computed cold). */
    public static LayoutCache none() {
        return NONE;
    }

    /** The layout kept for {@code turn}, or null (for tests). */
    public TurnLayout layoutOf(StoredTurn turn) {
        return layouts.get(turn);
    }

    /** Entries held. */
    public int size() {
        return layouts.size();
    }

    /** Drops the layouts of turns no longer in {@code state}, when the cache has grown well past the state. */
    public void prune(SessionState state) {
        int live = state.bodySize() + 2; // looked at on every render: no copy of the body
        if (layouts.size() <= 2 * live + PRUNE_SLACK) return;
        Map<StoredTurn, Boolean> alive = new IdentityHashMap<>(live);
        for (StoredTurn t : state.body()) alive.put(t, Boolean.TRUE);
        if (state.headUser() != null) alive.put(state.headUser(), Boolean.TRUE);
        if (state.headAssistant() != null) alive.put(state.headAssistant(), Boolean.TRUE);
        layouts.keySet().removeIf(t -> !alive.containsKey(t));
    }

    /**
     * The body turns of the last layout ({@link SegmentBuilder#build}) and the layouts they had, in seq order: the next
     * layout walks them beside the state's body, so a turn still in place finds its layout without a hash lookup.
     * Nulls when none. Bounded by the body (the same entries the map holds).
     */
    private StoredTurn[] lastTurns = new StoredTurn[0];
    private TurnLayout[] lastLayouts = new TurnLayout[0];

    /** A cursor over the last layout's body turns, for one layout walk in seq order. */
    final class Walk {
        private final StoredTurn[] turns = lastTurns;
        private final TurnLayout[] kept = lastLayouts;
        private final StoredTurn[] nextTurns;
        private final TurnLayout[] nextLayouts;
        private int at;
        private int n;

        Walk(int size) {
            nextTurns = new StoredTurn[size];
            nextLayouts = new TurnLayout[size];
        }

        /** The layout kept for {@code t} (a body turn, asked in seq order), or null. */
        TurnLayout find(StoredTurn t) {
            while (at < turns.length && turns[at].seq < t.seq) at++;
            if (at < turns.length && turns[at] == t) return kept[at];
            return layouts.get(t);
        }

        /** Records {@code t}'s layout for the next walk. */
        void keep(StoredTurn t, TurnLayout layout) {
            if (n < nextTurns.length) {
                nextTurns[n] = t;
                nextLayouts[n++] = layout;
            }
        }

        /** Ends the walk: its turns are the ones the next walk starts from. */
        void finish() {
            lastTurns = n == nextTurns.length ? nextTurns : java.util.Arrays.copyOf(nextTurns, n);
            lastLayouts = n == nextLayouts.length ? nextLayouts : java.util.Arrays.copyOf(nextLayouts, n);
        }
    }

    /** A walk over the last layout's body turns, for a body of {@code size} turns; null when nothing is kept. */
    Walk walk(int size) {
        return keeps ? new Walk(size) : null;
    }

    /** Entries beyond twice the state's turns before {@link #prune} looks. */
    private static final int PRUNE_SLACK = 16;

    TurnLayout get(StoredTurn turn) {
        return keeps ? layouts.get(turn) : null;
    }

    void put(StoredTurn turn, TurnLayout layout) {
        if (keeps) layouts.put(turn, layout);
    }

    boolean keeps() {
        return keeps;
    }
}
