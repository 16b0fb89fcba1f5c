package dev.baton.processor;

/**
 * A snapshot joined with its receipts, as {@link HandoffReceiptProcessor} forwards it for topic
 * {@code baton.handoff-outcomes} after each accepted receipt.
 *
 * @param outcome null while the receiver works (only the start receipt arrived)
 * @param dialect the receiver dialect named by the receipt this outcome is written for, or null
 */
public record JoinedOutcome(SnapshotEmitted snapshot, long emittedAtMillis, long acknowledgedAtMillis,
                            String receiverModel, Long budgetTokens, long startedAtMillis, Receipt.Result outcome,
                            Long tokensSpent, String dialect) {

    static JoinedOutcome of(HandoffLedger.Entry e, String dialect) {
        return new JoinedOutcome(e.snapshot, e.emittedAtMillis, e.acknowledgedAtMillis, e.receiverModel,
                e.budgetTokens, e.startedAtMillis, e.outcome, e.tokensSpent, dialect);
    }

    /** Time from the snapshot's write to its first receipt; 0 when the receipt came first. */
    public long timeToReceiptMillis() {
        return Math.max(0, acknowledgedAtMillis - emittedAtMillis);
    }
}
