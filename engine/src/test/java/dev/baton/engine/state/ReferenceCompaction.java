package dev.baton.engine.state;

import dev.baton.engine.policy.Policy;

import java.util.ArrayList;
import java.util.List;

/**
 * The reference compaction that {@code Transcript.compact}'s index replaced, kept as the tests' oracle: the walk from
 * the oldest body turn with the minimal sizes of the strictly newer turns. A turn that always renders leaves once
 * those newer turns alone exceed every budget; a turn that never renders again leaves once it is out of the brick's
 * reach; the walk stops where nothing newer can leave. O(n) per compaction.
 */
final class ReferenceCompaction {
    private ReferenceCompaction() {
    }

    /** Makes {@code state} compact by this walk from now on (a read-back state compacts by the index again). */
    static SessionState byWalk(SessionState state) {
        state.transcript.compaction = ReferenceCompaction::compact;
        return state;
    }

    static void compact(Transcript transcript, Policy policy) {
        List<StoredTurn> body = new ArrayList<>(transcript.body());
        if (body.size() < 2) return;
        long w = Transcript.window(policy);
        long bw = Transcript.brickWindow(policy);
        long newerT = 0;
        long newerB = 0;
        for (StoredTurn t : body) {
            newerT += transcript.minTranscriptChars(t);
            newerB += transcript.minBrickChars(t, policy);
        }
        int left = body.size();
        for (StoredTurn t : body) {
            if (left <= 1) break;
            left--;
            newerT -= transcript.minTranscriptChars(t);
            newerB -= transcript.minBrickChars(t, policy);
            if (newerB <= bw && newerT <= w) break; // nothing newer can leave either
            Transcript.Presence p = transcript.presence(t);
            // The brick caps results, so the brick's reach is checked on its own sizes too.
            if (p == Transcript.Presence.ALWAYS && newerT > w && newerB > bw) {
                transcript.removeForCompaction(t, policy, true);
            } else if (p == Transcript.Presence.NEVER && newerB > bw) {
                transcript.removeForCompaction(t, policy, false);
            }
        }
    }
}
