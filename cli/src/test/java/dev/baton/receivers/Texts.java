package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;

/** Recorded message content as text: strings as they are, lists of parts joined by new lines, other JSON compact. */
final class Texts {
    private Texts() {
    }

    static String content(JsonNode c) {
        if (c == null || c.isNull() || c.isMissingNode()) return "";
        if (c.isTextual()) return c.asText();
        if (c.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : c) {
                if (!sb.isEmpty()) sb.append('\n');
                sb.append(part.isTextual() ? part.asText() : part.has("text") ? part.get("text").asText() : part.toString());
            }
            return sb.toString();
        }
        return c.toString();
    }
}
