package dev.baton.engine.snapshot;

/**
 * One entry of a snapshot's call ledger (docs/rendering.md, "Call ledger"): every call of {@code tool} with the same
 * canonical arguments, counted by status, and the newest of them.
 *
 * @param tool             the tool
 * @param argumentsSha256  SHA-256 of the canonical arguments (64 lowercase hex digits)
 * @param count            calls in the group ({@code ok + error + cleared + unanswered})
 * @param firstSeq         seq of the oldest call of the group the ledger saw
 * @param seq              seq of the newest call (its calling turn)
 * @param agent            agent of the newest call
 * @param callId           call id of the newest call (null when it had none)
 * @param status           status of the newest call: OK, ERROR, CLEARED or UNANSWERED
 * @param resultSha256     SHA-256 of the newest call's result (UTF-8); null when it has none
 * @param resultBytes      UTF-8 bytes of that result (0 when none)
 * @param visible          where this receiver sees the newest call: native, narrated, manifest, digest, not_shown
 * @param sideEffecting    the tool matches the policy's side-effecting patterns
 */
public record CallLedgerEntry(String tool, String argumentsSha256, long count, long ok, long error, long cleared,
                              long unanswered, long firstSeq, long seq, String agent, String callId, String status,
                              String resultSha256, long resultBytes, Visibility visible, boolean sideEffecting) {

    /** Where the receiver can see a call in this snapshot's transcript. */
    public enum Visibility {
        /** As its own tool call and result (the receiver's own step). */
        NATIVE,
        /** As a narrated system line (another agent's step). */
        NARRATED,
        /** Listed, tool name only, in the trail manifest. */
        MANIFEST,
        /** Named, tool name only, in the digest of the summarized middle. */
        DIGEST,
        /** Nowhere in the transcript (cut, compacted, or a CLAUDE_CLI target, which has no transcript). */
        NOT_SHOWN;

        /** The value written in the snapshot: the name in lower case. */
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
