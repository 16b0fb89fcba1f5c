package dev.baton.consumer.dialect.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A dialect's request body as the JSON text an SDK's own mapper reads. The body goes through text, not through a
 * tree conversion, because the kits may hold a call's arguments as their exact literal text (a raw value) that
 * only a serializer writes out as it is.
 */
final class DialectJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private DialectJson() {
    }

    /** The body as compact JSON text; it must be an object (every dialect's body is one). */
    static String text(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new IllegalArgumentException("a dialect's request body is a JSON object, got " + body);
        }
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("request body cannot be written as JSON", e);
        }
    }
}
