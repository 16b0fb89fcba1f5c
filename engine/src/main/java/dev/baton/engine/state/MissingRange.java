package dev.baton.engine.state;

/**
 * A range of seqs that never arrived (inclusive). {@code count} is the number of missing turns: for a single range
 * {@code to - from + 1}; for the aggregate of older ranges, the sum of their sizes while {@code from..to} is their span.
 */
public record MissingRange(long from, long to, long count) {
    public static MissingRange of(long from, long to) {
        return new MissingRange(from, to, to - from + 1);
    }

    public boolean contains(long seq) {
        return seq >= from && seq <= to;
    }
}
