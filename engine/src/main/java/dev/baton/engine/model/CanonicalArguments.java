package dev.baton.engine.model;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The call ledger's hashes (docs/rendering.md, "Call ledger"): SHA-256, as 64 lowercase hex digits, of a tool call's
 * <em>canonical arguments</em> and of its result's UTF-8.
 *
 * <p>Canonical arguments are the JSON object with object members sorted by name (UTF-16 code units, at every depth;
 * members with the same name keep their order), no white space, strings written with the escapes of the snapshot's
 * canonical form (docs/audit.md rule 7) and numbers, {@code true}, {@code false} and {@code null} as received. So
 * {@code {"b":1, "a":"x"}} and {@code {"a":"x","b":1}} are the same call, which is what grouping identical calls needs.
 * Jackson's streaming parser reads the text (it keeps number literals as written); the tree is written by hand.
 */
public final class CanonicalArguments {
    private static final JsonFactory JSON = new JsonFactory();

    private CanonicalArguments() {
    }

    /** The canonical form of a JSON text; text that is not JSON is taken as it is (it cannot reach the ledger). */
    public static String of(String json) {
        if (json == null) return "{}";
        try (JsonParser p = JSON.createParser(json)) {
            JsonToken t = p.nextToken();
            if (t == null) return json;
            StringBuilder out = new StringBuilder(json.length());
            write(read(p, t), out);
            return out.toString();
        } catch (IOException e) {
            return json;
        }
    }

    /** SHA-256 of the canonical arguments. */
    public static String sha256(String argumentsJson) {
        return sha256Utf8(of(argumentsJson));
    }

    /** SHA-256 of the UTF-8 of {@code text} (a result), or null for null. */
    public static String sha256Utf8(String text) {
        if (text == null) return null;
        // digest() resets the instance; one per thread, as the provider look-up of getInstance costs about as much as
        // hashing a short text (issue 22: every tool call hashes its arguments and its result)
        return HEX.formatHex(SHA256.get().digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static final HexFormat HEX = HexFormat.of();
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    });

    /** A parsed value: a list of members (object), a list of values (array), or a literal already written out. */
    private static Object read(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT -> {
                List<Map.Entry<String, Object>> members = new ArrayList<>();
                for (JsonToken n = p.nextToken(); n != JsonToken.END_OBJECT; n = p.nextToken()) {
                    String name = p.currentName();
                    members.add(Map.entry(name, read(p, p.nextToken())));
                }
                members.sort(Map.Entry.comparingByKey(Comparator.naturalOrder())); // stable: equal names keep order
                return members;
            }
            case START_ARRAY -> {
                List<Object> items = new ArrayList<>();
                for (JsonToken n = p.nextToken(); n != JsonToken.END_ARRAY; n = p.nextToken()) items.add(read(p, n));
                return new Items(items);
            }
            case VALUE_STRING -> {
                StringBuilder sb = new StringBuilder();
                string(p.getText(), sb);
                return new Literal(sb.toString());
            }
            default -> {
                return new Literal(p.getText()); // numbers as written, true, false, null
            }
        }
    }

    private record Literal(String text) {
    }

    private record Items(List<Object> values) {
    }

    @SuppressWarnings("unchecked")
    private static void write(Object v, StringBuilder out) {
        if (v instanceof Literal l) {
            out.append(l.text());
        } else if (v instanceof Items items) {
            out.append('[');
            for (int i = 0; i < items.values().size(); i++) {
                if (i > 0) out.append(',');
                write(items.values().get(i), out);
            }
            out.append(']');
        } else {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> m : (List<Map.Entry<String, Object>>) v) {
                if (!first) out.append(',');
                first = false;
                string(m.getKey(), out);
                out.append(':');
                write(m.getValue(), out);
            }
            out.append('}');
        }
    }

    /** A string with the escapes of docs/audit.md rule 7. */
    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }
}
