package dev.baton.engine.state;

/** R3: one manifest entry line: {@code [seq 12 coder: read_file, grep]}. */
public final class ManifestLine {
    private ManifestLine() {
    }

    public static String of(TrailEntry e) {
        return "[seq " + e.seq + " " + e.agent + ": " + String.join(", ", e.toolNames) + "]";
    }

    /** Appends {@link #of} to {@code sb} without building it; returns {@code sb}. */
    public static StringBuilder appendTo(TrailEntry e, StringBuilder sb) {
        sb.append("[seq ").append(e.seq).append(' ').append(e.agent).append(": ");
        for (int i = 0; i < e.toolNames.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(e.toolNames.get(i));
        }
        return sb.append(']');
    }

    /** {@code of(e).length()} without building the string (state compaction computes it on every turn). */
    public static int length(TrailEntry e) {
        int n = 5 + digits(e.seq) + 1 + e.agent.length() + 2 + 1;
        for (int i = 0; i < e.toolNames.size(); i++) n += e.toolNames.get(i).length() + (i > 0 ? 2 : 0);
        return n;
    }

    /** Decimal digits of a non-negative number. */
    public static int digits(long v) {
        // comparisons, not divisions: compaction and the brick count digits of every seq they size
        if (v < 10) return 1;
        long p = 10;
        for (int d = 1; d < 19; d++) {
            long next = p * 10;
            if (v < next) return d + 1;
            p = next;
        }
        return 19;
    }
}
