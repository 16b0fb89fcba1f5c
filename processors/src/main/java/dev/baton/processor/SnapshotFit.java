package dev.baton.processor;

import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.SnapshotSize;

/**
 * Whether every snapshot a policy can produce fits one output record ({@code baton.max-output-bytes}): the check
 * that the default policy and every tenant policy pass besides {@link Policy#problems}.
 */
public final class SnapshotFit {
    private SnapshotFit() {
    }

    /**
     * Why a snapshot under {@code policy} cannot fit a record of {@code maxOutputBytes}, or null when it can: its
     * {@link SnapshotSize#policyBound policy bound} plus the record's overhead must fit.
     */
    public static String whyNot(Policy policy, SnapshotSize.Encoding encoding, int maxOutputBytes) {
        long bound = SnapshotSize.policyBound(policy, encoding) + SessionContextProcessor.RECORD_OVERHEAD_BYTES;
        if (bound <= maxOutputBytes) return null;
        return "a snapshot under this policy can take up to " + bound + " bytes in " + encoding
                + " (transcript budget " + policy.maxTranscriptBudget() + " characters × " + encoding.bytesPerChar
                + " bytes, brick, framing, retention lists; see docs/operations.md), more than "
                + "baton.max-output-bytes (" + maxOutputBytes + ")";
    }
}
