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
 * [--turns 100,1000] [--targets local,cli] [--size-factor 1.0] [--cpu] [--render-only | --part encode]} (the
 * end-to-end harness uses 0.1; targets: {@link HandoffWorkload#operation(String, int, double, boolean, boolean)};
 * {@code --cpu} times each operation by this thread's CPU time, steadier on a loaded machine; {@code --render-only}
 * times the render alone; {@code --part encode} the content hash and Avro value of an already rendered hand-off
 * only, {@link HandoffWorkload#encodeOperation}). The baseline's classes (its engine, topology, ... target/classes
 * first, then the same dependencies and this module's classes, whose {@code HandoffWorkload} both builds then run)
 * are loaded by their own class loader, the candidate's by
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
        boolean renderOnly = false;
        String part = "all";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--baseline-classpath" -> baselineClasspath = args[++i];
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--turns" -> turns = parseInts(args[++i]);
                case "--targets" -> targets = List.of(args[++i].split(","));
                case "--size-factor" -> sizeFactor = Double.parseDouble(args[++i]);
                case "--cpu" -> cpu = true;
                case "--render-only" -> renderOnly = true;
                case "--part" -> part = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        ClassLoader baseline = baselineClasspath == null ? null : loader(baselineClasspath);
        if (!part.equals("all") && !part.equals("encode")) {
            throw new IllegalArgumentException("unknown part " + part + ": expected all or encode");
        }
        boolean encodeOnly = part.equals("encode");
        if (encodeOnly && renderOnly) throw new IllegalArgumentException("--render-only and --part encode exclude each other");
        System.out.printf(Locale.ROOT, "size factor %s, %s, %s%n", sizeFactor,
                cpu ? "CPU time of this thread per operation" : "wall-clock time per operation",
                renderOnly ? "render only" : encodeOnly ? "content hash + Avro of a rendered hand-off"
                        : "render + content hash + Avro");
        System.out.println("| hand-off | turns | candidate µs (median) | baseline µs (median) | ratio (median of pairs) | pairs |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        for (String target : targets) {
            for (int n : turns) {
                // The workload times itself (CPU with --cpu), leaving out what it prepares between operations.
                LongSupplier candidate = encodeOnly ? HandoffWorkload.encodeOperation(target, n, sizeFactor, cpu)
                        : HandoffWorkload.operation(target, n, sizeFactor, renderOnly, cpu);
                if (baseline == null) {
                    PairedComparison.Pairs p = PairedComparison.pairs(candidate, candidate, seconds);
                    System.out.printf(Locale.ROOT, "| %s | %,d | %,.0f | — | — | %d |%n", target, n,
                            p.candidateNanos() / 1e3, p.pairs());
                    continue;
                }
                Class<?> workload = baseline.loadClass(HandoffWorkload.class.getName());
                LongSupplier base = encodeOnly
                        ? (LongSupplier) workload.getMethod("encodeOperation", String.class, int.class, double.class,
                                boolean.class).invoke(null, target, n, sizeFactor, cpu)
                        : (LongSupplier) workload.getMethod("operation", String.class, int.class, double.class,
                                boolean.class, boolean.class).invoke(null, target, n, sizeFactor, renderOnly, cpu);
                PairedComparison.Pairs p = PairedComparison.pairs(candidate, base, seconds);
                System.out.printf(Locale.ROOT, "| %s | %,d | %,.0f | %,.0f | %.3f | %d |%n", target, n,
                        p.candidateNanos() / 1e3, p.baselineNanos() / 1e3, p.ratio(), p.pairs());
            }
        }
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
