package dev.baton.bench;

import dev.baton.engine.state.SessionState;

/** The two kinds of session state compared: the real compacting state and the full history (the baseline). */
public enum StateKind {
    /** {@link SessionState#empty()}: compacts what no future snapshot can show. */
    COMPACTED,
    /** {@link SessionState#uncompacted()}: keeps every turn; the baseline. */
    FULL;

    public SessionState newState() {
        return this == COMPACTED ? SessionState.empty() : SessionState.uncompacted();
    }
}
