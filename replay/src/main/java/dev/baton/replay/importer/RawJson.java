package dev.baton.replay.importer;

import java.io.IOException;
import java.io.InputStream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.util.RawValue;

/**
 * Reads recorded JSON into Jackson trees that keep every number literal exactly as written ({@code 1.0},
 * {@code 1e5}), so tool-call arguments reach Baton unchanged (docs/contract.md, "R1 Ownership and narration": arguments
 * as received, number literals included). Numbers become {@link POJONode}s holding a {@link RawValue}; Jackson writes
 * them back verbatim.
 *
 * <p>Strings are repaired in one way only: a lone UTF-16 surrogate (possible through a {@code \ud800} escape, never
 * valid text) becomes U+FFFD, and the repair is counted, because such a string cannot be written as UTF-8.
 * A key repeated in one object keeps its first position and its last value (Jackson's rule).
 */
final class RawJson {
    static final JsonFactory FACTORY = JsonFactory.builder()
            // recorded tool results can be far larger than Jackson's 20 M-character default
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
            .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            // characters beyond the BMP (emoji) as their UTF-8 bytes, not as escaped surrogate pairs
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();
    static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private RawJson() {
    }

    /** Counts repaired strings while reading. */
    static final class Repairs {
        long loneSurrogates;
    }

    static JsonParser parser(InputStream in) throws IOException {
        JsonParser p = FACTORY.createParser(in);
        p.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
        return p;
    }

    static JsonParser parser(byte[] bytes) throws IOException {
        return FACTORY.createParser(bytes);
    }

    /** Reads the value the parser's current token starts. */
    static JsonNode readValue(JsonParser p, Repairs repairs) throws IOException {
        JsonToken t = p.currentToken();
        if (t == null) throw new IOException("no JSON value");
        switch (t) {
            case START_OBJECT: {
                ObjectNode o = NODES.objectNode();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = repair(p.currentName(), repairs);
                    p.nextToken();
                    o.set(name, readValue(p, repairs));
                }
                if (p.currentToken() != JsonToken.END_OBJECT) throw new IOException("unterminated object");
                return o;
            }
            case START_ARRAY: {
                ArrayNode a = NODES.arrayNode();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (p.currentToken() == null) throw new IOException("unterminated array");
                    a.add(readValue(p, repairs));
                }
                return a;
            }
            case VALUE_STRING:
                return NODES.textNode(repair(p.getText(), repairs));
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return NODES.pojoNode(new RawValue(p.getText()));
            case VALUE_TRUE:
                return NODES.booleanNode(true);
            case VALUE_FALSE:
                return NODES.booleanNode(false);
            case VALUE_NULL:
                return NODES.nullNode();
            default:
                throw new IOException("unexpected token " + t);
        }
    }

    /** Parses one complete JSON value (nothing may follow it). */
    static JsonNode readOne(byte[] bytes, Repairs repairs) throws IOException {
        try (JsonParser p = parser(bytes)) {
            if (p.nextToken() == null) throw new IOException("empty");
            JsonNode node = readValue(p, repairs);
            if (p.nextToken() != null) throw new IOException("content after the JSON value");
            return node;
        }
    }

    /** Parses one complete JSON value from text. */
    static JsonNode readOne(String text, Repairs repairs) throws IOException {
        try (JsonParser p = FACTORY.createParser(text)) {
            if (p.nextToken() == null) throw new IOException("empty");
            JsonNode node = readValue(p, repairs);
            if (p.nextToken() != null) throw new IOException("content after the JSON value");
            return node;
        }
    }

    /** Compact JSON text of a tree, numbers as they were written. */
    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    static void writeTree(JsonGenerator g, JsonNode node) throws IOException {
        MAPPER.writeTree(g, node);
    }

    /** True for a number read by this class. */
    static boolean isNumber(JsonNode n) {
        return n instanceof POJONode p && p.getPojo() instanceof RawValue;
    }

    /** The integer a number node holds, or null when it is not an integer. */
    static Long asLong(JsonNode n) {
        if (n == null) return null;
        String s = n instanceof POJONode p && p.getPojo() instanceof RawValue r ? r.rawValue().toString()
                : n.isNumber() ? n.asText() : null;
        if (s == null) return null;
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            try {
                java.math.BigDecimal d = new java.math.BigDecimal(s);
                return d.stripTrailingZeros().scale() <= 0 ? d.longValueExact() : null;
            } catch (NumberFormatException | ArithmeticException e2) {
                return null;
            }
        }
    }

    /** The text of a number node as written, else null. */
    static String numberText(JsonNode n) {
        return n instanceof POJONode p && p.getPojo() instanceof RawValue r ? r.rawValue().toString() : null;
    }

    /** A string field of an object, or null when absent or not a string. */
    static String string(JsonNode object, String field) {
        if (object == null) return null;
        JsonNode v = object.get(field);
        return v != null && v.isTextual() ? v.textValue() : null;
    }

    /** A string field, or a number field's literal, or null. */
    static String stringOrNumber(JsonNode object, String field) {
        if (object == null) return null;
        JsonNode v = object.get(field);
        if (v == null) return null;
        if (v.isTextual()) return v.textValue();
        return numberText(v);
    }

    static String repair(String s, Repairs repairs) {
        if (s == null) return null;
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean lone = false;
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    if (out != null) out.append(c).append(s.charAt(i + 1));
                    i++;
                    continue;
                }
                lone = true;
            } else if (Character.isLowSurrogate(c)) {
                lone = true;
            }
            if (lone) {
                if (out == null) out = new StringBuilder(s.length()).append(s, 0, i);
                out.append('\uFFFD');
                if (repairs != null) repairs.loneSurrogates++;
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? s : out.toString();
    }
}
