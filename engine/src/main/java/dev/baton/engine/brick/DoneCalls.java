package dev.baton.engine.brick;

import dev.baton.engine.markers.Markers;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.CallGroup;
import dev.baton.engine.state.CallStatus;
import dev.baton.engine.state.SessionState;

import java.util.ArrayList;
import java.util.List;

/**
 * The brick's list of side-effecting calls already made (docs/rendering.md, "Call ledger"): the call-ledger entries
 * whose tool matches the policy's {@code side_effect_tools}, newest first, one line each, within a quarter of the brick
 * budget, so that a receiver does not repeat a write it cannot see in its window. With no pattern set, or no such
 * call, there is no list and the brick is as it was.
 */
final class DoneCalls {
    private DoneCalls() {
    }

    /** The list's text (null when there is none) and the marker of the calls it could not list. */
    record Listed(String text, List<Truncation> truncations) {
        static final Listed NONE = new Listed(null, List.of());
    }

    static Listed list(SessionState state, Policy policy, int budget) {
        if (!policy.listsSideEffects()) return Listed.NONE;
        List<CallGroup> done = new ArrayList<>();
        for (CallGroup g : state.callLedger()) if (policy.isSideEffecting(g.tool())) done.add(g);
        if (done.isEmpty()) return Listed.NONE;
        int room = budget / 4;
        StringBuilder sb = new StringBuilder(Markers.BRICK_DONE_HEADING);
        int listed = 0;
        for (CallGroup g : done) {
            String line = line(g);
            int remaining = done.size() - listed - 1;
            int reserve = remaining > 0 ? Markers.brickDoneOmitted(remaining).length() + 1 : 0;
            if (sb.length() + 1 + line.length() + reserve > room) break;
            sb.append('\n').append(line);
            listed++;
        }
        if (listed == done.size()) return new Listed(sb.toString(), List.of());
        String marker = Markers.brickDoneOmitted(done.size() - listed);
        sb.append('\n').append(marker);
        // Baton's reading of R8 for this list: the omission is brick activity left out, counted in calls (entries).
        return new Listed(sb.toString(), List.of(new Truncation(TruncationKind.BRICK_ACTIVITY_OMITTED, null, null,
                done.size() - listed, marker)));
    }

    /** {@code [done seq 41 coder] git_push({"remote":"origin"}) → OK; 3 calls: 2 OK, 1 ERROR}. */
    static String line(CallGroup g) {
        StringBuilder sb = new StringBuilder("[done seq ").append(g.seq()).append(' ').append(g.agent()).append("] ")
                .append(g.tool()).append('(');
        // The arguments are quoted data inside a Baton line (R2); compact JSON has no raw line break.
        if (g.argumentsExcerpt() != null) sb.append(Escaping.escape(g.argumentsExcerpt()));
        else sb.append("sha256:").append(g.argumentsSha256(), 0, 12);
        sb.append(") → ").append(g.status().name());
        if (g.count() > 1) {
            sb.append("; ").append(g.count()).append(" calls:");
            String sep = " ";
            for (CallStatus s : CallStatus.values()) {
                long n = switch (s) {
                    case OK -> g.ok();
                    case ERROR -> g.error();
                    case CLEARED -> g.cleared();
                    case UNANSWERED -> g.unanswered();
                };
                if (n == 0) continue;
                sb.append(sep).append(n).append(' ').append(s.name());
                sep = ", ";
            }
        }
        return sb.append(']').toString();
    }
}
