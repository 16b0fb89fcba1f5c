package dev.baton.bench;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Candidate / baseline ratios measured interleaved: one operation of the compacted state, one of the full history,
 * alternating (which goes first alternates too), in one JVM after a warm-up; the ratio is the median of the
 * per-pair time ratios. Load from other processes then hits both sides alike, which separate JMH runs of minutes
 * apart cannot promise on a shared 2-core machine. Complements, does not replace, the JMH figures.
 */
public final class PairedComparison {
    /** One compared operation. */
    public enum Scenario { APPLY, RENDER_LOCAL, RENDER_CLI, ENCODE, DECODE }

    /** The median per-pair ratio and the median times (ns) of each side. */
    public record Result(Scenario scenario, int turns, double ratio, long candidateNanos, long baselineNanos,
                         int pairs) {
    }

    private PairedComparison() {
    }

    /** Measures {@code scenario} at {@code turns} for about {@code seconds} (plus a warm-up of a third of it). */
    public static Result measure(Scenario scenario, int turns, double seconds) {
        LongSupplier candidate = operation(scenario, turns, StateKind.COMPACTED);
        LongSupplier baseline = operation(scenario, turns, StateKind.FULL);
        Pairs p = pairs(candidate, baseline, seconds);
        return new Result(scenario, turns, p.ratio(), p.candidateNanos(), p.baselineNanos(), p.pairs());
    }

    /** The median per-pair ratio, the median times (ns) of each side and the number of pairs. */
    public record Pairs(double ratio, long candidateNanos, long baselineNanos, int pairs) {
    }

    /**
     * Times two operations (each returns its own duration in ns) in alternating pairs for about {@code seconds},
     * after a warm-up of a third of it; which one goes first alternates too.
     */
    public static Pairs pairs(LongSupplier candidate, LongSupplier baseline, double seconds) {
        long warmupEnd = System.nanoTime() + (long) (seconds / 3 * 1e9);
        int warm = 0;
        while (System.nanoTime() < warmupEnd || warm < 3) {
            candidate.getAsLong();
            baseline.getAsLong();
            warm++;
        }
        List<Double> ratios = new ArrayList<>();
        List<Long> c = new ArrayList<>();
        List<Long> b = new ArrayList<>();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end || ratios.size() < 5) {
            long tc, tb;
            if (ratios.size() % 2 == 0) {
                tc = candidate.getAsLong();
                tb = baseline.getAsLong();
            } else {
                tb = baseline.getAsLong();
                tc = candidate.getAsLong();
            }
            c.add(tc);
            b.add(tb);
            ratios.add((double) tc / tb);
        }
        return new Pairs(median(ratios), median(c), median(b), ratios.size());
    }

    /** An operation that returns its own duration in nanoseconds. */
    private static LongSupplier operation(Scenario scenario, int turns, StateKind kind) {
        Policy policy = Policy.defaults();
        List<Turn> session = SessionGenerator.session(turns, 42L);
        SessionState state = SessionGenerator.apply(session, kind.newState(), policy);
        byte[] encoded = StateStorage.InMemory.of(state).dump();
        ReadyHandoff local = new ReadyHandoff(SessionGenerator.localHandoff(), 1_000L, null);
        ReadyHandoff cli = new ReadyHandoff(SessionGenerator.cliHandoff(), 1_000L, null);
        long[] sink = new long[1];
        LayoutCache layouts = RenderCaches.forState();
        Runnable op = switch (scenario) {
            case APPLY -> () -> sink[0] += SessionGenerator.apply(session, kind.newState(), policy).nextSeq();
            case RENDER_LOCAL -> () -> sink[0] += ContextEngine.render("acme", "bench-session", state, local, policy,
                            Tokenizers.none(), layouts)
                    .stats().messageChars();
            case RENDER_CLI -> () -> sink[0] += ContextEngine.render("acme", "bench-session", state, cli, policy,
                            Tokenizers.none(), layouts)
                    .stats().brickChars();
            case ENCODE -> () -> sink[0] += StateStorage.InMemory.of(state).dump().length;
            case DECODE -> () -> sink[0] += StateStorage.InMemory.roundTrip(state).nextSeq();
        };
        return () -> {
            long t = System.nanoTime();
            op.run();
            return System.nanoTime() - t + (sink[0] == Long.MIN_VALUE ? 1 : 0);
        };
    }

    private static <T extends Comparable<T>> T median(List<T> values) {
        List<T> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
