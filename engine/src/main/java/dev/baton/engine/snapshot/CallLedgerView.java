package dev.baton.engine.snapshot;

import java.util.List;

/**
 * A snapshot's call ledger: the newest entries, newest call first, and what the bound dropped.
 *
 * @param entries         at most the policy's {@code call_ledger_entries}
 * @param calls           every call the ledger counted, kept and dropped
 * @param droppedEntries  entries dropped past the bound (older than every kept one)
 * @param droppedCalls    calls those entries held
 */
public record CallLedgerView(List<CallLedgerEntry> entries, long calls, long droppedEntries, long droppedCalls) {
    public CallLedgerView {
        entries = List.copyOf(entries);
    }
}
