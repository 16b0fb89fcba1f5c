package dev.baton.receivers;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Comparator;

/**
 * JSON values as the kits compare them (docs/receivers.md, "Arguments"): parsed, numbers compared as numbers — equal
 * when their decimal values are, or (a JavaScript kit re-spells literals a double cannot hold) their doubles are.
 */
final class JsonValues {
    private static final ObjectMapper EXACT = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final Comparator<JsonNode> LEAVES = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0 || a.doubleValue() == b.doubleValue() ? 0 : 1;
        }
        return a.equals(b) ? 0 : 1;
    };

    private JsonValues() {
    }

    static JsonNode parse(String json) {
        try {
            return EXACT.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean same(JsonNode a, JsonNode b) {
        return a.equals(LEAVES, b);
    }

    /** The first path where two values differ (for a readable failure), or null. */
    static String firstDifference(JsonNode a, JsonNode b, String path) {
        if (same(a, b)) return null;
        if (a.isObject() && b.isObject()) {
            for (var e : a.properties()) {
                JsonNode other = b.get(e.getKey());
                if (other == null) return path + "." + e.getKey() + " missing on the right";
                String d = firstDifference(e.getValue(), other, path + "." + e.getKey());
                if (d != null) return d;
            }
            for (var e : b.properties()) if (!a.has(e.getKey())) return path + "." + e.getKey() + " missing on the left";
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) return path + ": " + a.size() + " vs " + b.size() + " items";
            for (int i = 0; i < a.size(); i++) {
                String d = firstDifference(a.get(i), b.get(i), path + "[" + i + "]");
                if (d != null) return d;
            }
        }
        String l = a.toString();
        String r = b.toString();
        return path + ": " + (l.length() > 160 ? l.substring(0, 160) + "…" : l) + " vs "
                + (r.length() > 160 ? r.substring(0, 160) + "…" : r);
    }
}
