package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Where a session is handed off, and to whom: after its first third, after two thirds and at its end, to the run's
 * main agent (its own calls replay natively), to a newcomer (everything narrated) and, in a multi-agent run, to the
 * second most active agent too; all {@code LOCAL}, plus one {@code CLAUDE_CLI} hand-off to the main agent at the end.
 * A tight session (a tenant with a small transcript budget) is handed off at its end only, to the main agent and the
 * newcomer. Hand-off events are placed right after the turn they follow, so each snapshot shows the session as it
 * stood then.
 */
final class HandoffPlan {
    static final String NEWCOMER = "baton-newcomer";

    private HandoffPlan() {
    }

    /** The session's turn lines with its hand-off lines in place. */
    static List<String> lines(RecordedSession s, boolean tight) {
        int n = s.turns().size();
        List<String> receivers = receivers(s);
        TreeSet<Integer> points = new TreeSet<>();
        if (n > 0) {
            points.add(n - 1);
            if (!tight) {
                points.add(Math.max(0, (n + 2) / 3 - 1));
                points.add(Math.max(0, (2 * n + 2) / 3 - 1));
            }
        }
        List<String> out = new ArrayList<>();
        String lastAgent = null;
        for (int seq = 0; seq < n; seq++) {
            out.add(s.lines().get(seq));
            JsonNode t = s.turns().get(seq).path("turn");
            if ("ASSISTANT".equals(t.path("role").asText())) lastAgent = t.path("agent").asText();
            if (!points.contains(seq)) continue;
            List<String> to = tight ? receivers.subList(0, 2) : receivers;
            for (String r : to) out.add(handoff(s, seq, lastAgent, r, "LOCAL"));
            if (!tight && seq == n - 1) out.add(handoff(s, seq, lastAgent, receivers.get(0), "CLAUDE_CLI"));
        }
        return out;
    }

    /** Main agent, newcomer, and the second most active agent of a multi-agent run. */
    static List<String> receivers(RecordedSession s) {
        List<Map.Entry<String, Integer>> active = new ArrayList<>(s.assistantTurns().entrySet());
        active.sort(Comparator.comparing((Map.Entry<String, Integer> e) -> e.getValue()).reversed());
        List<String> out = new ArrayList<>();
        out.add(active.isEmpty() ? "baton-main" : active.get(0).getKey());
        out.add(NEWCOMER);
        if (active.size() > 1) out.add(active.get(1).getKey());
        return out;
    }

    private static String handoff(RecordedSession s, int seq, String from, String to, String target) {
        String handoffId = BatonNames.id("at" + seq + "-" + to + "-" + target);
        ObjectNode e = SessionBuilder.JSON.createObjectNode();
        e.put("event_id", BatonNames.id(s.sessionId() + ":" + handoffId));
        e.put("tenant_id", s.tenant());
        e.put("session_id", s.sessionId());
        e.put("occurred_at", s.turns().get(seq).path("occurred_at").asText());
        ObjectNode h = e.putObject("handoff");
        h.put("handoff_id", handoffId);
        if (from != null) h.put("from_agent", from);
        h.put("to_agent", to);
        h.put("target", target);
        h.put("as_of_seq", seq);
        return e.toString();
    }
}
