package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One converted run: its SessionEvent turn events (seq 0, 1, ... in order), read as trees for planning and as the exact
 * lines to send (the trees' numbers are Jackson's, the lines keep argument literals as the producer wrote them).
 *
 * @param source the recorded file, relative to the shared folder (plus {@code #cell} or {@code :line} inside it)
 */
record RecordedSession(String tenant, String sessionId, String source, List<ObjectNode> turns, List<String> lines) {

    RecordedSession(String tenant, String sessionId, String source, List<ObjectNode> turns) {
        this(tenant, sessionId, source, turns, turns.stream().map(ObjectNode::toString).toList());
    }

    /** Tool calls the turns carry: trail steps and legacy {@code tool_calls}. */
    int calls() {
        int n = 0;
        for (ObjectNode e : turns) {
            n += e.path("turn").path("trail").size() + e.path("turn").path("tool_calls").size();
        }
        return n;
    }

    /** ASSISTANT turns per agent, in order of first appearance. */
    Map<String, Integer> assistantTurns() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (ObjectNode e : turns) {
            JsonNode t = e.path("turn");
            if ("ASSISTANT".equals(t.path("role").asText())) counts.merge(t.path("agent").asText(), 1, Integer::sum);
        }
        return counts;
    }

    /** The same session under another tenant (the events' envelopes rewritten). */
    RecordedSession inTenant(String other) {
        List<ObjectNode> copies = turns.stream().map(e -> {
            ObjectNode c = e.deepCopy();
            c.put("tenant_id", other);
            return c;
        }).toList();
        String from = "\"tenant_id\":\"" + tenant + "\"";
        String to = "\"tenant_id\":\"" + other + "\"";
        List<String> moved = lines.stream().map(l -> {
            if (!l.contains(from)) throw new IllegalStateException("no tenant field in " + l);
            return l.replaceFirst(java.util.regex.Pattern.quote(from), java.util.regex.Matcher.quoteReplacement(to));
        }).toList();
        return new RecordedSession(other, sessionId, source, copies, moved);
    }
}
