package dev.baton.replay;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a replay's wall time goes, phase by phase, for {@code -Dbaton.timings=true} (benchmarks/README.md, "Issue 22:
 * backfill start-up"): each {@link #mark} ends a phase; {@link #report} prints them on stderr, the first one measured
 * from the JVM's start. Off by default: then marks cost a field read.
 */
final class PhaseClock {

    static final boolean ENABLED = Boolean.getBoolean("baton.timings");

    private static final List<String> NAMES = new ArrayList<>();
    private static final List<Long> MILLIS = new ArrayList<>();
    private static final List<Long> CPU_NANOS = new ArrayList<>();

    private PhaseClock() {
    }

    /** Ends the phase called {@code name} now. */
    static synchronized void mark(String name) {
        if (ENABLED) {
            NAMES.add(name);
            MILLIS.add(System.currentTimeMillis());
            CPU_NANOS.add(processCpuNanos());
        }
    }

    /** CPU time of the whole process (every thread, the JIT's and the broker's too), or -1 when unknown. */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
            ? os.getProcessCpuTime() : -1;
    }

    /**
     * Prints the phases so far (and forgets them): each one's wall time and the process's CPU time in it (on a
     * loaded machine wall time says little, CPU time still says where the work is), the first since the JVM started.
     */
    static synchronized void report(String command) {
        if (!ENABLED || NAMES.isEmpty()) {
            return;
        }
        long start = ManagementFactory.getRuntimeMXBean().getStartTime();
        StringBuilder out = new StringBuilder(command).append(": timings, wall/CPU s:");
        long previous = start;
        long previousCpu = 0;
        for (int i = 0; i < NAMES.size(); i++) {
            out.append(String.format(Locale.ROOT, " %s %.2f/%.2f;", NAMES.get(i), (MILLIS.get(i) - previous) / 1e3,
                (CPU_NANOS.get(i) - previousCpu) / 1e9));
            previous = MILLIS.get(i);
            previousCpu = CPU_NANOS.get(i);
        }
        out.append(String.format(Locale.ROOT, " total since JVM start %.2f/%.2f", (previous - start) / 1e3,
            previousCpu / 1e9));
        System.err.println(out);
        NAMES.clear();
        MILLIS.clear();
        CPU_NANOS.clear();
    }
}
