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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
        // Where each step is shown: by (turn seq, call id), for the calling turn and the answering TOOL turn alike.
        Map<String, Visibility> steps = new HashMap<>();
        List<long[]> digests = new ArrayList<>();
        boolean manifestShown = false;
        for (Segment s : segments) {
            if (s.kind() == Segment.Kind.STEP) {
                Visibility v = MessageWriter.isNative(s, receiver) ? Visibility.NATIVE : Visibility.NARRATED;
                steps.putIfAbsent(key(s.step().seq(), s.step().callId()), v);
                steps.putIfAbsent(key(s.homeSeq(), s.step().callId()), v);
            } else if (s.kind() == Segment.Kind.MARKER) {
                for (Truncation t : s.notes()) {
                    if (t.kind() == TruncationKind.TRAIL_MANIFEST) manifestShown = true;
                    if (t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED && t.seqFrom() != null) {
                        digests.add(new long[]{t.seqFrom(), t.seqTo()});
                    }
                }
            }
        }
        List<CallLedgerEntry> entries = new ArrayList<>();
        for (CallGroup g : state.callLedger()) {
            entries.add(new CallLedgerEntry(g.tool(), g.argumentsSha256(), g.count(), g.ok(), g.error(), g.cleared(),
                    g.unanswered(), g.firstSeq(), g.seq(), g.agent(), g.callId(), g.status().name(), g.resultSha256(),
                    g.resultBytes(), visibility(g, steps, manifestShown ? manifestSeqs : List.of(), digests),
                    policy.isSideEffecting(g.tool())));
        }
        return new CallLedgerView(entries, state.callLedgerCalls(), state.callLedgerDroppedEntries(),
                state.callLedgerDroppedCalls());
    }

    private static Visibility visibility(CallGroup g, Map<String, Visibility> steps, List<Long> manifestSeqs,
                                         List<long[]> digests) {
        Visibility v = steps.get(key(g.seq(), g.callId()));
        if (v != null) return v;
        if (manifestSeqs.contains(g.seq())) return Visibility.MANIFEST;
        for (long[] d : digests) if (d[0] <= g.seq() && g.seq() <= d[1]) return Visibility.DIGEST;
        return Visibility.NOT_SHOWN;
    }

    private static String key(long seq, String callId) {
        return seq + "/" + callId;
    }
}
