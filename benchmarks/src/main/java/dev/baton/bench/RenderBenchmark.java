package dev.baton.bench;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.tokens.Tokenizers;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * Render time of one hand-off ({@link ContextEngine#render}) from a state holding a generated session of
 * {@code turns} turns: a LOCAL hand-off (transcript, brick, framing, parity) and a CLAUDE_CLI one (brick only).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RenderBenchmark {
    @Param({"100", "1000", "10000"})
    public int turns;

    @Param({"COMPACTED", "FULL"})
    public StateKind kind;

    private final Policy policy = Policy.defaults();
    private SessionState state;
    /** Held beside the state, as the processor holds it: the renders after the first are warm. */
    private LayoutCache layouts;
    private ReadyHandoff local;
    private ReadyHandoff cli;

    @Setup(Level.Trial)
    public void build() {
        state = SessionGenerator.apply(SessionGenerator.session(turns, 42L), kind.newState(), policy);
        layouts = RenderCaches.forState();
        local = ready(SessionGenerator.localHandoff());
        cli = ready(SessionGenerator.cliHandoff());
    }

    private static ReadyHandoff ready(Handoff h) {
        return new ReadyHandoff(h, 1_000L, null);
    }

    @Benchmark
    public Snapshot renderLocal() {
        return ContextEngine.render("acme", "bench-session", state, local, policy, Tokenizers.none(), layouts);
    }

    @Benchmark
    public Snapshot renderClaudeCli() {
        return ContextEngine.render("acme", "bench-session", state, cli, policy, Tokenizers.none(), layouts);
    }
}
