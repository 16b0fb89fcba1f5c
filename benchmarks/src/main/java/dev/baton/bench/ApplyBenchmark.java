package dev.baton.bench;

import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.SessionState;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Apply throughput: one operation applies a whole generated session of {@code turns} turns, in order, to a fresh
 * state ({@link SessionState#offerTurn}). Turns per second = turns / (seconds per operation).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ApplyBenchmark {
    @Param({"1000", "10000"})
    public int turns;

    @Param({"COMPACTED", "FULL"})
    public StateKind kind;

    private List<Turn> session;
    private final Policy policy = Policy.defaults();

    @Setup(Level.Trial)
    public void generate() {
        session = SessionGenerator.session(turns, 42L);
    }

    @Benchmark
    public SessionState applySession() {
        return SessionGenerator.apply(session, kind.newState(), policy);
    }
}
