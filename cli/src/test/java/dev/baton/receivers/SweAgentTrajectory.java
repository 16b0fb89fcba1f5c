package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * SWE-agent {@code .traj}: its {@code history} (the messages the model saw). Function-calling runs carry
 * {@code tool_calls} on assistant messages answered by {@code tool} messages ({@code tool_call_ids}); the older runs
 * record the command only as text ({@code action}) answered by a user message: those stay text, as recorded.
 */
final class SweAgentTrajectory {
    private SweAgentTrajectory() {
    }

    static RecordedSession convert(JsonNode traj, SessionBuilder b) {
        for (JsonNode m : traj.path("history")) {
            String role = m.path("role").asText();
            String agent = m.path("agent").asText("swe-agent");
            String content = Texts.content(m.get("content"));
            switch (role) {
                case "system" -> b.system(content);
                case "user" -> b.user(content);
                case "tool" -> {
                    JsonNode ids = m.path("tool_call_ids");
                    b.result(ids.size() > 0 ? ids.get(0).asText() : null, content, false);
                }
                case "assistant" -> {
                    JsonNode calls = m.path("tool_calls");
                    if (!calls.isArray() || calls.isEmpty()) {
                        b.say(agent, content);
                        break;
                    }
                    for (JsonNode c : calls) {
                        b.call(agent, content, c.path("id").asText(), c.path("function").path("name").asText(),
                                c.path("function").path("arguments").asText(null));
                    }
                }
                default -> throw new IllegalArgumentException("history role " + role);
            }
        }
        return b.build();
    }
}
