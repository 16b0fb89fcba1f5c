package dev.baton.it;

import java.util.ArrayList;
import java.util.List;

/**
 * JSON lines (docs/contract.md, "JSONL files") of sessions with hand-offs for the fault tests, in the order they are
 * sent: each round gives every session one more turn and a hand-off, so each round yields one snapshot per session. The
 * lines are what {@link EngineRendering#renderDirectly} renders the fault-free result from.
 */
final class HandoffCorpus {

    private static final String[] AGENTS = {"qwen", "claude"};
    private final String tenant;
    private final List<String> lines = new ArrayList<>();
    private final ContractEvents events = new ContractEvents("2026-12-01T00:00:00Z");

    HandoffCorpus(String tenant) {
        this.tenant = tenant;
    }

    /** Round {@code round} (from 1) of {@code session}: its line(s), also kept in {@link #lines()}. */
    List<String> round(int session, int round) {
        List<String> out = new ArrayList<>();
        if (round == 1) {
            out.add(turn(session, 0, "user", "USER", "task of session " + session));
        }
        String agent = AGENTS[round % 2];
        out.add(turn(session, round, agent, "ASSISTANT", "round " + round + " of session " + session
                + ": " + "work ".repeat(1 + (session + round) % 7)));
        out.add(handoff(session, "h" + round, AGENTS[(round + 1) % 2]));
        lines.addAll(out);
        return out;
    }

    /** Every line handed out so far, in order. */
    List<String> lines() {
        return List.copyOf(lines);
    }

    /** The snapshot id of a session's hand-off in a round. */
    String snapshotId(int session, int round) {
        return tenant + "/s" + session + "/h" + round;
    }

    private String turn(int session, long seq, String agent, String role, String text) {
        return events.turn(tenant, "s" + session, seq, agent, role, text).toString();
    }

    private String handoff(int session, String id, String to) {
        return events.handoff(tenant, "s" + session, id, to).toString();
    }
}
