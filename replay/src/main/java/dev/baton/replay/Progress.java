package dev.baton.replay;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A progress line on stderr for long commands ({@code baton backfill}): count, rate, and when the
 * total is known a percentage, a bar and the estimated time left.
 *
 * <p>On a terminal it redraws one line in place ({@code \r}, at most ten times a second); otherwise
 * (a log file, CI) it prints a plain line every few seconds, so logs stay readable. Whether stderr is a
 * terminal comes from {@code BATON_STDERR_TTY} (set by the {@code ./baton} launcher), else from
 * {@link System#console()}. Thread-safe.
 */
public final class Progress implements AutoCloseable {

    private static final long REDRAW_NANOS = 100_000_000L;       // terminal: 10 redraws a second at most
    private static final long LINE_NANOS = 5_000_000_000L;       // log: one line every 5 s
    private static final int BAR_WIDTH = 24;

    private final String label;
    private final String unit;
    private final long total;
    private final PrintStream out;
    private final boolean terminal;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private long done;
    private long lastDrawNanos;
    private int lastWidth;
    private boolean finished;

    /**
     * @param label what is progressing, e.g. {@code backfill}
     * @param total the expected count, or a negative number when unknown
     * @param unit what is counted, plural, e.g. {@code events}
     */
    public Progress(String label, long total, String unit, PrintStream out, boolean terminal, LongSupplier nanoClock) {
        this.label = label;
        this.unit = unit;
        this.total = total;
        this.out = out;
        this.terminal = terminal;
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
        this.lastDrawNanos = startNanos;
    }

    /** A progress line on {@code System.err}. */
    public static Progress onStderr(String label, long total, String unit) {
        return new Progress(label, total, unit, System.err, stderrIsTerminal(), System::nanoTime);
    }

    /** True when stderr is (probably) a terminal: see the class comment. */
    public static boolean stderrIsTerminal() {
        String fromLauncher = System.getenv("BATON_STDERR_TTY");
        if (fromLauncher != null) {
            return fromLauncher.equals("1") || fromLauncher.equalsIgnoreCase("true");
        }
        return System.console() != null;
    }

    /** Counts {@code n} more done and redraws when it is time to. */
    public synchronized void advance(long n) {
        update(done + n);
    }

    /** Sets the count done and redraws when it is time to. */
    public synchronized void update(long newDone) {
        done = newDone;
        if (finished) {
            return;
        }
        long now = nanoClock.getAsLong();
        if (now - lastDrawNanos >= (terminal ? REDRAW_NANOS : LINE_NANOS)) {
            lastDrawNanos = now;
            draw(now, false);
        }
    }

    public synchronized long done() {
        return done;
    }

    /** Draws the final state and ends the line. Idempotent. */
    public synchronized void finish() {
        if (finished) {
            return;
        }
        finished = true;
        draw(nanoClock.getAsLong(), true);
    }

    @Override
    public void close() {
        finish();
    }

    private void draw(long now, boolean last) {
        String line = render(done, now - startNanos, last);
        if (terminal) {
            // pad to wipe what is left of a longer previous line
            int pad = Math.max(0, lastWidth - line.length());
            out.print("\r" + line + " ".repeat(pad) + (last ? "\n" : ""));
            lastWidth = line.length();
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** The progress text for {@code count} done after {@code elapsedNanos}. */
    String render(long count, long elapsedNanos, boolean last) {
        double seconds = Math.max(elapsedNanos, 1) / 1e9;
        double rate = count / seconds;
        StringBuilder line = new StringBuilder(label).append(terminal ? "  " : ": ");
        if (total > 0) {
            double fraction = Math.min(1.0, (double) count / total);
            if (terminal) {
                int filled = (int) Math.round(fraction * BAR_WIDTH);
                line.append('[').append("#".repeat(filled)).append("-".repeat(BAR_WIDTH - filled)).append("] ");
            }
            line.append(String.format(Locale.ROOT, "%5.1f%%  %,d/%,d %s", fraction * 100, count, total, unit));
        } else {
            line.append(String.format(Locale.ROOT, "%,d %s", count, unit));
        }
        line.append(String.format(Locale.ROOT, "  %,.0f %s/s", rate, unit));
        if (last) {
            line.append("  in ").append(duration(seconds));
        } else if (total > 0 && rate > 0 && count < total) {
            line.append("  ETA ").append(duration((total - count) / rate));
        }
        return line.toString();
    }

    /** {@code 0:07}, {@code 12:30}, {@code 1:02:03}. */
    static String duration(double seconds) {
        long s = Math.round(seconds);
        long h = s / 3600;
        long m = (s % 3600) / 60;
        long sec = s % 60;
        return h > 0
                ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, sec)
                : String.format(Locale.ROOT, "%d:%02d", m, sec);
    }
}
