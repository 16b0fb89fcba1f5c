package dev.baton.processor;

import dev.baton.engine.model.SessionKey;

/**
 * A hand-off receipt that was read and passed the contract checks (topic {@code baton.handoff-receipts}), on its way
 * to {@link HandoffReceiptProcessor}. The raw bytes travel with it so that a receipt refused later
 * ({@code RECEIPT_HASH_MISMATCH}, {@code UNKNOWN_SNAPSHOT}) is dead-lettered as it was received.
 *
 * @param outcome      null on the receipt sent when the receiver starts; its result on the one sent at the end
 * @param budgetTokens the receiver's budget, or null
 * @param tokensSpent  tokens the receiver reported spending, or null
 * @param dialect      the receiver dialect the consumer built the request in (docs/receivers.md), or null; not kept
 *                     by the stored hand-off ledger, so a receipt held until its snapshot is written loses it
 */
public record Receipt(SessionKey session, String handoffId, String contentSha256, String receiverModel,
                      Long budgetTokens, long startedAtMillis, Result outcome, Long tokensSpent, String dialect,
                      byte[] rawKey, byte[] rawValue) {

    /** How the receiver's work ended (Avro {@code HandoffResult}). */
    public enum Result {
        RESOLVED("resolved"), FAILED("failed"), HANDED_BACK("failed — handed back"), ABANDONED("abandoned");

        private final String words;

        Result(String words) {
            this.words = words;
        }

        /** The words of the brick's previous-hand-off line. */
        public String words() {
            return words;
        }
    }

    /** {@code tenant/session/handoff}. */
    public String snapshotId() {
        return session.snapshotId(handoffId);
    }
}
