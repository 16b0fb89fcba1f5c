package dev.baton.cli.data;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

import dev.baton.avro.TenantPolicy;
import dev.baton.serde.AvroJson;
import dev.baton.serde.JsonReadException;
import org.apache.avro.Schema;

/**
 * Tenant policy files for {@code baton policy}: YAML or JSON (JSON is read as YAML) with the fields of the
 * {@code TenantPolicy} record (snake_case, as on the topic); an absent field keeps the application's default. Also the
 * readable forms: a policy as YAML of its set fields, and the field-by-field difference of two policies.
 */
public final class PolicyFiles {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
    private static final ObjectMapper JSON = new ObjectMapper();

    private PolicyFiles() {
    }

    /**
     * The policy of {@code tenantId} in {@code text}; its {@code tenant_id}, when given, must be {@code tenantId}.
     *
     * @throws IllegalArgumentException saying what is wrong (not YAML/JSON, not an object, an unknown field, a value
     *     of the wrong type)
     */
    public static TenantPolicy parse(String text, String tenantId) {
        JsonNode tree;
        try {
            tree = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not YAML or JSON: " + e.getOriginalMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("a policy file holds one object of TenantPolicy fields");
        }
        ObjectNode object = (ObjectNode) tree;
        JsonNode given = object.get("tenant_id");
        if (given != null && !given.isNull() && !given.asText().equals(tenantId)) {
            throw new IllegalArgumentException("the file's tenant_id '" + given.asText() + "' is not --tenant '"
                    + tenantId + "'");
        }
        List<String> unknown = new ArrayList<>();
        object.fieldNames().forEachRemaining(name -> {
            if (TenantPolicy.getClassSchema().getField(name) == null) unknown.add(name);
        });
        if (!unknown.isEmpty()) {
            // the JSON reader skips unknown fields (forward compatibility); in a file they are typos
            throw new IllegalArgumentException("unknown field(s) " + String.join(", ", unknown)
                    + " (a TenantPolicy has: " + fieldNames() + ")");
        }
        object.put("tenant_id", tenantId);
        try {
            return AvroJson.read(JSON.writeValueAsString(object), TenantPolicy.class);
        } catch (JsonReadException e) {
            throw new IllegalArgumentException(e.getMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static String fieldNames() {
        return String.join(", ", TenantPolicy.getClassSchema().getFields().stream().map(Schema.Field::name).toList());
    }

    /** The set fields of {@code policy} as YAML (nulls, i.e. defaults, left out). */
    public static String toYaml(TenantPolicy policy) {
        try {
            ObjectNode node = (ObjectNode) JSON.readTree(new String(AvroJson.write(policy), StandardCharsets.UTF_8));
            node.properties().removeIf(e -> e.getValue().isNull());
            return YAML.writeValueAsString(node);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One line per field that differs, in schema order: {@code field: OLD -> NEW}, where a field that is not set
     * reads {@code (default)} and a policy that does not exist is all defaults. Empty when nothing changes.
     */
    public static List<String> diff(TenantPolicy before, TenantPolicy after) {
        Schema schema = TenantPolicy.getClassSchema();
        List<String> lines = new ArrayList<>();
        for (Schema.Field f : schema.getFields()) {
            if (f.name().equals("tenant_id")) continue;
            Object a = before == null ? null : before.get(f.pos());
            Object b = after == null ? null : after.get(f.pos());
            if (!Objects.equals(text(a), text(b))) {
                lines.add(f.name() + ": " + show(a) + " -> " + show(b));
            }
        }
        return lines;
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    private static String show(Object value) {
        if (value == null) return "(default)";
        String s = value.toString();
        if (value instanceof CharSequence) {
            try {
                s = JSON.writeValueAsString(s); // quoted, newlines escaped: one line per field
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
            if (s.length() > 120) s = s.substring(0, 100) + "…\" (" + value.toString().length() + " chars)";
        }
        return s;
    }
}
