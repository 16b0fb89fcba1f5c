package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Who&amp;When group chats. Magentic-One (Hand-Crafted): {@code role} names the speaker, with what it did in
 * parentheses ({@code "Orchestrator (-> WebSurfer)"}, {@code "Orchestrator (thought)"}); {@code human} is the user.
 * CaptainAgent (Algorithm-Generated): {@code name} names the speaker, {@code role} is AutoGen's relative user/assistant.
 * Every message is its speaker's text (the terminal agent's output and the web surfer's actions are recorded only as
 * text, and stay so).
 */
final class WhoAndWhenLog {
    private WhoAndWhenLog() {
    }

    static RecordedSession convert(JsonNode log, SessionBuilder b) {
        for (JsonNode m : log.path("history")) {
            String content = Texts.content(m.get("content"));
            String speaker = m.hasNonNull("name") ? m.get("name").asText() : m.path("role").asText();
            int paren = speaker.indexOf(" (");
            if (paren > 0) speaker = speaker.substring(0, paren);
            if ("human".equals(speaker)) b.user(content);
            else b.say(speaker, content);
        }
        return b.build();
    }
}
