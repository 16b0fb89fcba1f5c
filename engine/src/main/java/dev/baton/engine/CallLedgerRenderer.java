package dev.baton.engine;

import dev.baton.engine.layout.MessageWriter;
import dev.baton.engine.layout.Segment;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.CallLedgerEntry;
import dev.baton.engine.snapshot.CallLedgerEntry.Visibility;
import dev.baton.engine.snapshot.CallLedgerView;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.CallGroup;
import dev.baton.engine.state.SessionState;

import java.util.ArrayList;
import java.util.List;

/**
 * The snapshot's call ledger (docs/rendering.md, "Call ledger"): the state's groups of calls, newest first, each
 * saying where this receiver sees its newest call in the transcript that was rendered. A function of the state, the
 * policy and the rendered segments (R10).
 */
final class CallLedgerRenderer {
    private CallLedgerRenderer() {
    }

    /**
     * The ledger, or null when the policy keeps none ({@code call_ledger_entries} 0) or the session made no call
     * (so snapshots of sessions without tool calls are unchanged, their content hash included).
     *
     * @param segments     the transcript's segments as rendered (empty for CLAUDE_CLI)
     * @param manifestSeqs the seqs the transcript's manifest lists (empty when it shows none)
     */
    static CallLedgerView render(SessionState state, Policy policy, String receiver, List<Segment> segments,
                                 List<Long> manifestSeqs) {
        if (policy.callLedgerEntries() <= 0 || state.callLedgerCalls() == 0) return null;
        List<CallGroup> groups = state.callLedger();
        // Where each group's newest call is shown: the first step segment whose (turn seq, call id) is the group's,
        // for the calling turn and the answering TOOL turn alike. Only the groups' keys are looked for (a sorted
        // array of their seqs): no key is built per step segment, and the steps of calls no group keeps cost a search.
        int n = groups.size();
        long[] seqs = new long[n];
        int[] bySeq = new int[n];
        // Insertion sort from the oldest group: the groups come newest first, so this is nearly one pass.
        for (int k = 0; k < n; k++) {
            int j = n - 1 - k;
            long seq = groups.get(j).seq();
            int at = k;
            while (at > 0 && seqs[at - 1] > seq) {
                seqs[at] = seqs[at - 1];
                bySeq[at] = bySeq[at - 1];
                at--;
            }
            seqs[at] = seq;
            bySeq[at] = j;
        }
        Visibility[] shown = new Visibility[n];
        List<long[]> digests = new ArrayList<>();
        boolean manifestShown = false;
        for (Segment s : segments) {
            if (s.kind() == Segment.Kind.STEP) {
                Visibility v = MessageWriter.isNative(s, receiver) ? Visibility.NATIVE : Visibility.NARRATED;
                see(s.step().seq(), s.step().callId(), v, seqs, bySeq, groups, shown);
                see(s.homeSeq(), s.step().callId(), v, seqs, bySeq, groups, shown);
            } else if (s.kind() == Segment.Kind.MARKER) {
                for (Truncation t : s.notes()) {
                    if (t.kind() == TruncationKind.TRAIL_MANIFEST) manifestShown = true;
                    if (t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED && t.seqFrom() != null) {
                        digests.add(new long[]{t.seqFrom(), t.seqTo()});
                    }
                }
            }
        }
        List<CallLedgerEntry> entries = new ArrayList<>(n);
        for (int j = 0; j < n; j++) {
            CallGroup g = groups.get(j);
            entries.add(new CallLedgerEntry(g.tool(), g.argumentsSha256(), g.count(), g.ok(), g.error(), g.cleared(),
                    g.unanswered(), g.firstSeq(), g.seq(), g.agent(), g.callId(), g.status().name(), g.resultSha256(),
                    g.resultBytes(), visibility(g, shown[j], manifestShown ? manifestSeqs : List.of(), digests),
                    policy.isSideEffecting(g.tool())));
        }
        return new CallLedgerView(entries, state.callLedgerCalls(), state.callLedgerDroppedEntries(),
                state.callLedgerDroppedCalls());
    }

    /**
     * A step shown at (seq, callId) with visibility {@code v}: the first such step sets the visibility of every group
     * whose newest call it is. Call ids compare as the former {@code seq + "/" + callId} keys did (a null id as
     * "null").
     */
    private static void see(long seq, String callId, Visibility v, long[] seqs, int[] bySeq, List<CallGroup> groups,
                            Visibility[] shown) {
        int at = java.util.Arrays.binarySearch(seqs, seq);
        if (at < 0) return;
        while (at > 0 && seqs[at - 1] == seq) at--;
        String id = String.valueOf(callId);
        for (; at < seqs.length && seqs[at] == seq; at++) {
            int j = bySeq[at];
            if (shown[j] == null && id.equals(String.valueOf(groups.get(j).callId()))) shown[j] = v;
        }
    }

    private static Visibility visibility(CallGroup g, Visibility shown, List<Long> manifestSeqs, List<long[]> digests) {
        if (shown != null) return shown;
        if (manifestSeqs.contains(g.seq())) return Visibility.MANIFEST;
        for (long[] d : digests) if (d[0] <= g.seq() && g.seq() <= d[1]) return Visibility.DIGEST;
        return Visibility.NOT_SHOWN;
    }
}
