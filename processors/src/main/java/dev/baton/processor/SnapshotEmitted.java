package dev.baton.processor;

import dev.baton.engine.model.SessionKey;

/**
 * What the snapshot writer tells {@link HandoffReceiptProcessor} about a snapshot it has just written: enough to match
 * receipts (id, content hash) and to fill a {@code HandoffOutcome} and the per-tenant cost metrics.
 *
 * @param snapshotBytes     size of the written value in bytes
 * @param transcriptTokens  tokens of the transcript: exact when {@code exactEncoding} is set, else estimated
 * @param brickTokens       tokens of the brick, counted alike
 * @param exactEncoding     the encoding of exact counts (the policy's first token-count encoding), or null for the
 *                          estimate (characters / 4, rounded up)
 */
public record SnapshotEmitted(SessionKey session, String handoffId, String contentSha256, String fromAgent,
                              String toAgent, long asOfSeq, long snapshotBytes, long messageChars, long brickChars,
                              long transcriptTokens, long brickTokens, String exactEncoding) {
}
