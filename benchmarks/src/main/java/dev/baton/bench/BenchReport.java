package dev.baton.bench;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the engine benchmarks with short JMH settings and prints a table of ratios, candidate (compacted state) /
 * baseline (full history), measured side by side in the same run (this machine varies up to 2x between runs, so
 * only ratios within one run are comparable).
 *
 * <p>Flags: {@code --forks N} (1), {@code --warmup N} (3), {@code --iterations N} (5), {@code --seconds N} (1, per
 * iteration), {@code --include REGEX} (all three benchmark classes), {@code --jvm-args "..."} (extra JVM
 * arguments of the forks, e.g. a flight recording), {@code --paired-seconds S} (3; 0: none) for the interleaved
 * ratios of {@link PairedComparison}, {@code --no-jmh} (only the paired ratios and sizes).
 */
public final class BenchReport {
    private BenchReport() {
    }

    public static void main(String[] args) throws RunnerException {
        int forks = 1, warmup = 3, iterations = 5, seconds = 1;
        String include = "dev\\.baton\\.bench\\.(Apply|Render|Codec)Benchmark";
        String jvmArgs = null;
        double pairedSeconds = 3;
        boolean jmh = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--forks" -> forks = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--include" -> include = args[++i];
                case "--jvm-args" -> jvmArgs = args[++i];
                case "--paired-seconds" -> pairedSeconds = Double.parseDouble(args[++i]);
                case "--no-jmh" -> jmh = false;
                default -> throw new IllegalArgumentException("unknown flag " + args[i]
                        + " (--forks, --warmup, --iterations, --seconds, --include, --jvm-args, --paired-seconds,"
                        + " --no-jmh)");
            }
        }
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(include)
                .forks(forks)
                .warmupIterations(warmup)
                .warmupTime(TimeValue.seconds(seconds))
                .measurementIterations(iterations)
                .measurementTime(TimeValue.seconds(seconds))
                .shouldFailOnError(true);
        if (jvmArgs != null) options = options.jvmArgsAppend(jvmArgs.trim().split("\\s+"));
        Collection<RunResult> results = jmh ? new Runner(options.build()).run() : List.of();
        Map<String, PairedComparison.Result> paired = new HashMap<>();
        if (pairedSeconds > 0) {
            for (PairedComparison.Scenario sc : PairedComparison.Scenario.values()) {
                int[] sizes = sc == PairedComparison.Scenario.APPLY ? new int[]{1_000, 10_000}
                        : new int[]{100, 1_000, 10_000};
                for (int turns : sizes) {
                    PairedComparison.Result r = PairedComparison.measure(sc, turns, pairedSeconds);
                    System.out.printf(Locale.ROOT, "paired %s %d turns: ratio %.3f over %d pairs (median us: "
                                    + "compacted %,.0f, full %,.0f)%n", sc, turns, r.ratio(), r.pairs(),
                            r.candidateNanos() / 1e3, r.baselineNanos() / 1e3);
                    paired.put(sc + "|" + turns, r);
                }
            }
        }
        printReport(results, paired);
    }

    /** Scores keyed by "Class.method|turns|KIND", in the benchmark's own time unit. */
    static Map<String, double[]> scores(Collection<RunResult> results) {
        Map<String, double[]> out = new HashMap<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
            String key = name + "|" + r.getParams().getParam("turns") + "|" + r.getParams().getParam("kind");
            out.put(key, new double[]{r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError()});
        }
        return out;
    }

    static void printReport(Collection<RunResult> results, Map<String, PairedComparison.Result> paired) {
        Map<String, double[]> s = scores(results);
        System.out.println();
        System.out.println("== Baton engine: candidate = compacted state, baseline = full history (same run) ==");
        System.out.println();
        System.out.println("JMH columns: score of each side and JMH's ratio of the two; 'paired' = median ratio of "
                + "interleaved runs (PairedComparison), robust to load from other processes.");
        System.out.println();
        System.out.println("Apply throughput (turns/s; ratio = candidate / baseline, > 1 means the compacting state "
                + "is faster)");
        row("turns", "compacted", "full", "ratio", "paired");
        for (int turns : new int[]{1_000, 10_000}) {
            double[] c = s.get("ApplyBenchmark.applySession|" + turns + "|COMPACTED");
            double[] f = s.get("ApplyBenchmark.applySession|" + turns + "|FULL");
            PairedComparison.Result p = paired.get("APPLY|" + turns);
            // throughput ratio = inverse of the time ratio
            String pr = p == null ? "-" : ratio(1 / p.ratio());
            if (c == null || f == null) {
                if (p != null) row(String.valueOf(turns), fmt(turns / (p.candidateNanos() / 1e9)),
                        fmt(turns / (p.baselineNanos() / 1e9)), "-", pr);
                continue;
            }
            double tc = turns / (c[0] / 1_000.0);
            double tf = turns / (f[0] / 1_000.0);
            row(String.valueOf(turns), fmt(tc), fmt(tf), ratio(tc / tf), pr);
        }
        String[][] timed = {{"RenderBenchmark.renderLocal", "RENDER_LOCAL", "Render LOCAL hand-off (us"},
                {"RenderBenchmark.renderClaudeCli", "RENDER_CLI", "Render CLAUDE_CLI hand-off (us"},
                {"CodecBenchmark.encode", "ENCODE", "Codec encode (us per state"},
                {"CodecBenchmark.decode", "DECODE", "Codec decode (us per state"}};
        for (String[] t : timed) {
            System.out.println();
            System.out.println(t[2] + "; ratio = candidate / baseline, < 1 means faster)");
            timeRows(s, t[0], paired, t[1]);
        }
        System.out.println();
        System.out.println("Codec encoded size (bytes; ratio = candidate / baseline)");
        row("turns", "compacted", "full", "ratio", "");
        for (int turns : new int[]{100, 1_000, 10_000}) {
            SessionState c = state(turns, StateKind.COMPACTED);
            SessionState f = state(turns, StateKind.FULL);
            long cb = StateStorage.InMemory.of(c).dump().length;
            long fb = StateStorage.InMemory.of(f).dump().length;
            row(String.valueOf(turns), fmt(cb), fmt(fb), ratio((double) cb / fb), "");
        }
        System.out.println();
        System.out.println("Snapshot shape (compacted state; 'same' = equal to the full history's snapshot)");
        System.out.printf(Locale.ROOT, "  %-7s %-11s %9s %14s %11s %6s%n", "turns", "target", "messages",
                "message chars", "brick chars", "same");
        for (int turns : new int[]{100, 1_000, 10_000}) {
            SessionState c = state(turns, StateKind.COMPACTED);
            SessionState f = state(turns, StateKind.FULL);
            for (Handoff h : new Handoff[]{SessionGenerator.localHandoff(), SessionGenerator.cliHandoff()}) {
                ReadyHandoff ready = new ReadyHandoff(h, 1_000L, null);
                Snapshot a = ContextEngine.render("acme", "bench-session", c, ready, Policy.defaults());
                Snapshot b = ContextEngine.render("acme", "bench-session", f, ready, Policy.defaults());
                System.out.printf(Locale.ROOT, "  %-7d %-11s %9d %,14d %,11d %6s%n", turns, h.target(),
                        a.messages().size(), a.stats().messageChars(), a.stats().brickChars(),
                        a.equals(b) ? "yes" : "NO");
            }
        }
    }

    private static void timeRows(Map<String, double[]> s, String bench, Map<String, PairedComparison.Result> paired,
                                 String scenario) {
        row("turns", "compacted", "full", "ratio", "paired");
        for (int turns : new int[]{100, 1_000, 10_000}) {
            double[] c = s.get(bench + "|" + turns + "|COMPACTED");
            double[] f = s.get(bench + "|" + turns + "|FULL");
            PairedComparison.Result p = paired.get(scenario + "|" + turns);
            String pr = p == null ? "-" : ratio(p.ratio());
            if (c == null || f == null) {
                if (p != null) row(String.valueOf(turns), fmt(p.candidateNanos() / 1e3) + " (paired)",
                        fmt(p.baselineNanos() / 1e3) + " (paired)", "-", pr);
                continue;
            }
            row(String.valueOf(turns), fmt(c[0]) + " ±" + fmt(c[1]), fmt(f[0]) + " ±" + fmt(f[1]), ratio(c[0] / f[0]),
                    pr);
        }
    }

    /** The state of the generated session of {@code turns} turns (seed 42, as in the benchmarks). */
    static SessionState state(int turns, StateKind kind) {
        return SessionGenerator.apply(SessionGenerator.session(turns, 42L), kind.newState(), Policy.defaults());
    }

    private static void row(String a, String b, String c, String d, String e) {
        System.out.printf(Locale.ROOT, "  %-7s %24s %24s %8s %8s%n", a, b, c, d, e);
    }

    private static String fmt(double v) {
        if (v >= 100) return String.format(Locale.ROOT, "%,.0f", v);
        if (v >= 10) return String.format(Locale.ROOT, "%.1f", v);
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String ratio(double r) {
        return String.format(Locale.ROOT, "%.3f", r);
    }
}
