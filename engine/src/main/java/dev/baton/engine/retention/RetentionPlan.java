package dev.baton.engine.retention;

import dev.baton.engine.state.TrailEntry;

import java.util.List;
import java.util.Set;

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
 */
public record RetentionPlan(List<Long> expanded, List<Long> inlined, List<TrailEntry> manifestEntries,
                            long manifestCounted, long trailBytes, Set<Long> retained) {

    public boolean isRetained(long seq) {
        return retained.contains(seq);
    }

    public long manifestTotal() {
        return manifestEntries.size() + manifestCounted;
    }

    public boolean hasManifest() {
        return manifestTotal() > 0;
    }
}
