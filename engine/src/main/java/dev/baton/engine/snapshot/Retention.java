package dev.baton.engine.snapshot;

import java.util.List;

/** R3: which trail-bearing turns were expanded, inlined, or listed in the manifest. */
public record Retention(List<Long> expandedSeqs, List<Long> inlinedSeqs, List<Long> manifestSeqs, long manifestUnlisted,
                        long trailBytes) {
    public Retention {
        expandedSeqs = List.copyOf(expandedSeqs);
        inlinedSeqs = List.copyOf(inlinedSeqs);
        manifestSeqs = List.copyOf(manifestSeqs);
    }
}
