package dev.baton.engine.retention;

import dev.baton.engine.state.TrailEntry;

import java.util.Arrays;
import java.util.List;

/**
 * R3 — the shared retention plan: which trail-bearing turns render their trails in full (the 2 newest expanded, then
 * inlined while cumulative bytes stay within the inline budget) and which are replaced by the manifest.
 * The plan is the same whoever the receiver is.
 *
 * @param expanded         seqs of expanded trails, newest first
 * @param inlined          seqs of inlined trails, newest first
 * @param manifestEntries  manifested turns still known individually, newest first
 * @param manifestCounted  manifested turns known only by count (older than any manifest could list)
 * @param trailBytes       UTF-8 bytes of the expanded and inlined trails
 * @param retained         seqs of the expanded and inlined trails, ascending (asked for every turn laid out: a
 *                         sorted array, not a set of boxed seqs; not to be modified)
 */
public record RetentionPlan(List<Long> expanded, List<Long> inlined, List<TrailEntry> manifestEntries,
                            long manifestCounted, long trailBytes, long[] retained) {

    public boolean isRetained(long seq) {
        return Arrays.binarySearch(retained, seq) >= 0;
    }

    public long manifestTotal() {
        return manifestEntries.size() + manifestCounted;
    }

    public boolean hasManifest() {
        return manifestTotal() > 0;
    }
}
