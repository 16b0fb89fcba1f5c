package dev.baton.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 22's targets in one command: four {@link EndToEndHarness} runs one after the other — sessions of 100 and of
 * 1,000 turns, at size factors 0.1 and 1.0 — each with the store-only and the store-and-emit floor beside Baton, the
 * first one also timing hand-offs under {@code --load-rate} events/s of the workload; then a table of every target
 * with what was measured and whether it was met. Each run's own report is printed as it ends; the load average
 * ({@code /proc/loadavg}) is printed before and after each run, since the machine may be shared.
 *
 * <p>Flags: {@code --turns} (30000: turns of the size-0.1 runs; 100-turn sessions are {@code turns / 100} sessions,
 * 1,000-turn ones {@code turns / 1000}), {@code --turns-size1} (24000: the same for the size-1.0 runs),
 * {@code --load-rate} (2000), {@code --latency-samples} (1000), {@code --with-passthrough} (also run the
 * pass-through; off: no target is set against it), {@code --set key=value} (repeatable, to every run).
 */
public final class TargetsReport {
    private TargetsReport() {
    }

    /** One configuration and its run. */
    record Config(String name, double sizeFactor, int turnsPerSession, List<String> args) {
    }

    public static void main(String[] args) throws Exception {
        int turns = 30_000, turnsSize1 = 24_000, loadRate = 2_000, latencySamples = 1_000;
        boolean withPassThrough = false;
        List<String> common = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--turns" -> turns = Integer.parseInt(args[++i]);
                case "--turns-size1" -> turnsSize1 = Integer.parseInt(args[++i]);
                case "--load-rate" -> loadRate = Integer.parseInt(args[++i]);
                case "--latency-samples" -> latencySamples = Integer.parseInt(args[++i]);
                case "--with-passthrough" -> withPassThrough = true;
                case "--set" -> {
                    common.add("--set");
                    common.add(args[++i]);
                }
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        if (!withPassThrough) common.add("--skip-passthrough");
        List<Config> configs = List.of(
                config("100-turn sessions, size 0.1", 0.1, 100, turns, common,
                        "--load-rate", Integer.toString(loadRate), "--latency-samples", Integer.toString(latencySamples)),
                config("1,000-turn sessions, size 0.1", 0.1, 1_000, turns, common),
                config("100-turn sessions, size 1.0", 1.0, 100, turnsSize1, common),
                config("1,000-turn sessions, size 1.0", 1.0, 1_000, turnsSize1, common));

        Map<Config, EndToEndHarness.Run> runs = new LinkedHashMap<>();
        Map<Config, String> loads = new LinkedHashMap<>();
        for (Config c : configs) {
            String before = loadAverage();
            System.out.printf(Locale.ROOT, "%n#### %s: EndToEndHarness %s (load average %s)%n", c.name(),
                    String.join(" ", c.args()), before);
            EndToEndHarness.Run r = EndToEndHarness.run(EndToEndHarness.Flags.parse(c.args().toArray(new String[0])));
            EndToEndHarness.report(r.flags(), r.input(), r.passThrough(), r.storeOnly(), r.storeAndEmit(), r.baton(),
                    r.seconds());
            String after = loadAverage();
            System.out.printf(Locale.ROOT, "  load average after: %s%n", after);
            runs.put(c, r);
            loads.put(c, before + " → " + after);
        }

        System.out.printf(Locale.ROOT, "%n== issue 22 targets (one run each, side by side in this JVM) ==%n");
        System.out.println("| target | configuration | measured | met? | load average (1/5/15 min, before → after) |");
        System.out.println("|---|---|---|---|---|");
        for (Config c : configs) {
            EndToEndHarness.Run r = runs.get(c);
            EndToEndHarness.Outcome b = r.baton(), f = r.storeAndEmit();
            double cpu = f.cpuMicrosPerRecord() / b.cpuMicrosPerRecord();
            double rate = b.recordsPerSecond() / f.recordsPerSecond();
            row("Baton ≥ 0.8× the store-and-emit floor, by CPU per record", c.name(),
                    String.format(Locale.ROOT, "%.2f× (Baton %.1f µs, floor %.1f µs)", cpu, b.cpuMicrosPerRecord(),
                            f.cpuMicrosPerRecord()), cpu >= 0.8, loads.get(c));
            row("Baton ≥ 0.8× the store-and-emit floor, by records/s", c.name(),
                    String.format(Locale.ROOT, "%.2f× (Baton %,.0f, floor %,.0f)", rate, b.recordsPerSecond(),
                            f.recordsPerSecond()), rate >= 0.8, loads.get(c));
        }
        for (double size : new double[] {0.1, 1.0}) {
            Config c100 = find(configs, size, 100), c1000 = find(configs, size, 1_000);
            double at100 = relative(runs.get(c100)), at1000 = relative(runs.get(c1000));
            double growth = at1000 / at100;
            row("per-event CPU at 1,000 turns ≤ 1.3× that at 100, each ÷ the floor's",
                    String.format(Locale.ROOT, "size %.1f", size),
                    String.format(Locale.ROOT, "%.2f× (Baton ÷ floor: %.2f at 1,000 turns, %.2f at 100)", growth,
                            at1000, at100), growth <= 1.3, loads.get(c100) + "; " + loads.get(c1000));
        }
        Config first = configs.get(0);
        EndToEndHarness.Outcome loaded = runs.get(first).baton();
        long p99 = loaded.percentile(0.99);
        row("hand-off → snapshot p99 ≤ 300 ms at " + loadRate + " events/s", first.name(),
                String.format(Locale.ROOT, "p99 %.0f ms (p50 %.0f, max %.0f; %,d hand-offs timed inside the load)",
                        p99 / 1e3, loaded.percentile(0.5) / 1e3, loaded.percentile(1.0) / 1e3,
                        loaded.latencyMicros().length), p99 >= 0 && p99 <= 300_000, loads.get(first));
    }

    private static Config config(String name, double size, int perSession, int turns, List<String> common,
                                 String... extra) {
        List<String> args = new ArrayList<>(List.of("--turns", Integer.toString(turns), "--sessions",
                Integer.toString(Math.max(1, turns / perSession)), "--size-factor", Double.toString(size)));
        args.addAll(List.of(extra));
        args.addAll(common);
        return new Config(name, size, perSession, List.copyOf(args));
    }

    private static Config find(List<Config> configs, double size, int perSession) {
        return configs.stream().filter(c -> c.sizeFactor() == size && c.turnsPerSession() == perSession).findFirst()
                .orElseThrow();
    }

    /** Baton's CPU per record divided by the store-and-emit floor's. */
    private static double relative(EndToEndHarness.Run r) {
        return r.baton().cpuMicrosPerRecord() / r.storeAndEmit().cpuMicrosPerRecord();
    }

    private static void row(String target, String config, String measured, boolean met, String load) {
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", target, config, measured, met ? "yes" : "**no**",
                load);
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
