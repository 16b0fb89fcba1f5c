package dev.baton.bench;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * What one hand-off costs (render + content hash + Avro value: {@link HandoffWorkload}), this build against another
 * build of Baton, as paired ratios in one JVM: {@code HandoffCost --baseline-classpath CP [--seconds S]
 * [--turns 100,1000] [--targets local,cli] [--size-factor 1.0] [--cpu] [--part all|encode]} (the end-to-end harness
 * uses 0.1; {@code --part encode} times the content hash and Avro value of an already rendered hand-off only,
 * {@link HandoffWorkload#encodeOperation}). The baseline's classes (its engine, topology, ... target/classes first,
 * then the same dependencies and this module's classes) are loaded by their own class loader, the candidate's by
 * this one; the two operations alternate ({@link PairedComparison#pairs}) and the ratio is the median per-pair ratio
 * candidate / baseline (below 1: the candidate is cheaper). Without a baseline it prints this build's times only.
 */
public final class HandoffCost {
    private HandoffCost() {
    }

    public static void main(String[] args) throws Exception {
        String baselineClasspath = null;
        double seconds = 6;
        List<Integer> turns = List.of(100, 1_000);
        List<String> targets = List.of("local", "cli");
        double sizeFactor = 1.0;
        boolean cpu = false;
        String part = "all";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--baseline-classpath" -> baselineClasspath = args[++i];
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--turns" -> turns = parseInts(args[++i]);
                case "--targets" -> targets = List.of(args[++i].split(","));
                case "--size-factor" -> sizeFactor = Double.parseDouble(args[++i]);
                case "--cpu" -> cpu = true;
                case "--part" -> part = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        ClassLoader baseline = baselineClasspath == null ? null : loader(baselineClasspath);
        String method = switch (part) {
            case "all" -> "operation";
            case "encode" -> "encodeOperation";
            default -> throw new IllegalArgumentException("unknown part " + part + ": expected all or encode");
        };
        System.out.printf(Locale.ROOT, "%s, size factor %s, %s%n", part.equals("all") ? "render + hash + Avro"
                        : "content hash + Avro of a rendered hand-off", sizeFactor,
                cpu ? "CPU time of this thread per operation" : "wall-clock time per operation");
        System.out.println("| hand-off | turns | candidate µs (median) | baseline µs (median) | ratio (median of pairs) | pairs |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        for (String target : targets) {
            for (int n : turns) {
                LongSupplier candidate = timed((LongSupplier) HandoffWorkload.class
                        .getMethod(method, String.class, int.class, double.class).invoke(null, target, n, sizeFactor), cpu);
                if (baseline == null) {
                    PairedComparison.Pairs p = PairedComparison.pairs(candidate, candidate, seconds);
                    System.out.printf(Locale.ROOT, "| %s | %,d | %,.0f | — | — | %d |%n", target, n,
                            p.candidateNanos() / 1e3, p.pairs());
                    continue;
                }
                LongSupplier base = timed((LongSupplier) baseline.loadClass(HandoffWorkload.class.getName())
                        .getMethod(method, String.class, int.class, double.class).invoke(null, target, n, sizeFactor), cpu);
                PairedComparison.Pairs p = PairedComparison.pairs(candidate, base, seconds);
                System.out.printf(Locale.ROOT, "| %s | %,d | %,.0f | %,.0f | %.3f | %d |%n", target, n,
                        p.candidateNanos() / 1e3, p.baselineNanos() / 1e3, p.ratio(), p.pairs());
            }
        }
    }

    /**
     * The operation timed by its own wall-clock figure, or with {@code cpu} by this thread's CPU time around it (the
     * same measure for both builds, whatever their {@code HandoffWorkload} returns; steadier on a loaded machine,
     * where a wall-clock figure also counts the time other processes held the core).
     */
    static LongSupplier timed(LongSupplier op, boolean cpu) {
        if (!cpu) return op;
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        return () -> {
            long t = bean.getCurrentThreadCpuTime();
            op.getAsLong();
            return bean.getCurrentThreadCpuTime() - t;
        };
    }

    /** A class loader that sees only {@code classpath} (and the JDK): the baseline's own copy of every class. */
    static ClassLoader loader(String classpath) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String part : classpath.split(File.pathSeparator)) {
            if (!part.isBlank()) urls.add(new File(part).toURI().toURL());
        }
        return new URLClassLoader("baseline", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    private static List<Integer> parseInts(String s) {
        List<Integer> out = new ArrayList<>();
        for (String p : s.split(",")) out.add(Integer.parseInt(p.trim().replace("_", "")));
        return out;
    }
}
