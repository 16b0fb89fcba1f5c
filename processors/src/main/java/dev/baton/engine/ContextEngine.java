package dev.baton.engine;

import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;

/**
 * The context engine's entry point: plain values in, a {@link Snapshot} out (CONTRACT.md §4). No Kafka types, no
 * clock, no randomness: the snapshot is a function of the applied events, the hand-off and the policy (R10).
 */
public final class ContextEngine {
    private ContextEngine() {
    }

    /** Renders the snapshot of {@code state} for a ready hand-off. Does not modify the state. */
    public static Snapshot render(String tenantId, String sessionId, SessionState state, ReadyHandoff handoff,
                                  Policy policy) {
        throw new UnsupportedOperationException("in progress");
    }
}
