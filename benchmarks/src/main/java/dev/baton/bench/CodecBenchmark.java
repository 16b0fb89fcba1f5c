package dev.baton.bench;

import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
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
 * State store serialization ({@link StateStorage} (skeleton and entries; decode measured as a write-and-read round trip)): encode and decode of a state holding a generated session of
 * {@code turns} turns. Encoded sizes are printed by {@link BenchReport} (they do not need JMH).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CodecBenchmark {
    @Param({"100", "1000", "10000"})
    public int turns;

    @Param({"COMPACTED", "FULL"})
    public StateKind kind;

    private SessionState state;
    private byte[] encoded;

    @Setup(Level.Trial)
    public void build() {
        state = SessionGenerator.apply(SessionGenerator.session(turns, 42L), kind.newState(), Policy.defaults());
        encoded = StateStorage.InMemory.of(state).dump();
    }

    @Benchmark
    public byte[] encode() {
        return StateStorage.InMemory.of(state).dump();
    }

    @Benchmark
    public SessionState decode() {
        return StateStorage.InMemory.roundTrip(state);
    }
}
