package dev.baton.engine.snapshot;

/**
 * R8: one visible marker. {@code seqFrom}/{@code seqTo} are inclusive, null when the cut is not tied to seqs;
 * {@code count} is turns for ranges and characters for cuts; {@code marker} is the exact visible marker text.
 */
public record Truncation(TruncationKind kind, Long seqFrom, Long seqTo, long count, String marker) {
}
