package dev.baton.avro;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.specific.SpecificData;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schema evolution, guarded (docs/schema-evolution.md). The input schemas stay BACKWARD compatible with every released
 * version (a new Baton reads what old producers wrote), the snapshot schema FORWARD compatible (old consumers read
 * what a new Baton writes), checked with Avro's own {@link SchemaCompatibility}. The released versions are in
 * {@code src/main/avro/released/<Name>-v<N>.avsc}, each exactly the text Baton registered for that version.
 */
class SchemaEvolutionTest {
    enum Rule {
        /** A reader of the current schema reads data written with a released one. */
        BACKWARD,
        /** A reader of a released schema reads data written with the current one. */
        FORWARD
    }

    static final Map<String, Rule> RULES = new LinkedHashMap<>();

    static {
        RULES.put("SessionEvent", Rule.BACKWARD);
        RULES.put("TenantPolicy", Rule.BACKWARD);
        RULES.put("ContextSnapshot", Rule.FORWARD);
        RULES.put("HandoffReceipt", Rule.BACKWARD);
        RULES.put("HandoffOutcome", Rule.FORWARD);
    }

    private static final Path RELEASED = Path.of("src", "main", "avro", "released");
    private static final Path REGISTERED = Path.of("target", "registered");
    private static final Pattern RELEASED_NAME = Pattern.compile("([A-Za-z]+)-v([0-9]+)\\.avsc");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What breaks reading between {@code candidate} and {@code released} under {@code rule}; empty when nothing. */
    static List<String> incompatibilities(Rule rule, Schema candidate, Schema released) {
        SchemaCompatibility.SchemaPairCompatibility pair = rule == Rule.BACKWARD
                ? SchemaCompatibility.checkReaderWriterCompatibility(candidate, released)
                : SchemaCompatibility.checkReaderWriterCompatibility(released, candidate);
        return pair.getResult().getIncompatibilities().stream()
                .map(i -> i.getType() + " at " + i.getLocation() + ": " + i.getMessage()).toList();
    }

    @Test
    void shouldRegisterTheShippedSchemaWithoutJavaPropertiesAndWriteItForReleasing() throws IOException {
        Files.createDirectories(REGISTERED);
        for (String name : RULES.keySet()) {
            Schema shipped = ShippedSchemas.of(name);
            Schema generated = SpecificData.get().getSchema(SpecificData.get().getClass(shipped));
            assertThat(generated.toString()).as("the generated class's schema").contains("\"avro.java.string\"");
            assertThat(shipped.toString()).as(name).doesNotContain("avro.java.string");
            // same fields, types, order and names: the same bytes on the wire
            assertThat(SchemaNormalization.toParsingForm(shipped)).isEqualTo(SchemaNormalization.toParsingForm(generated));
            // what `baton` registers, ready to be copied into released/ when a version is released
            Files.writeString(REGISTERED.resolve(name + ".avsc"), shipped.toString(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void shouldKeepEveryCurrentSchemaCompatibleWithEveryReleasedVersion() throws IOException {
        Map<String, List<Path>> released = released();
        assertThat(released.keySet()).as("schemas with released versions").containsAll(RULES.keySet());
        List<String> broken = new ArrayList<>();
        for (Map.Entry<String, Rule> e : RULES.entrySet()) {
            for (Path version : released.get(e.getKey())) {
                incompatibilities(e.getValue(), ShippedSchemas.of(e.getKey()), parse(version))
                        .forEach(i -> broken.add(e.getValue() + " " + e.getKey() + " vs " + version.getFileName() + ": " + i));
            }
        }
        assertThat(broken).as("see docs/schema-evolution.md for a breaking change").isEmpty();
    }

    @Test
    void shouldHaveReleasedFilesThatAreExactlyARegisteredText() throws IOException {
        for (List<Path> versions : released().values()) {
            for (Path version : versions) {
                String text = Files.readString(version, StandardCharsets.UTF_8);
                Schema schema = new Schema.Parser().parse(text);
                assertThat(version.getFileName().toString()).startsWith(schema.getName() + "-v");
                assertThat(schema.toString()).as(version + " is the text Baton registers").isEqualTo(text);
            }
        }
    }

    @Test
    void shouldAcceptAnOptionalFieldWithADefault() throws IOException {
        for (Map.Entry<String, Rule> e : RULES.entrySet()) {
            Schema current = ShippedSchemas.of(e.getKey());
            Schema added = altered(current, fields -> fields.addObject().put("name", "added_later")
                    .put("doc", "a new optional field").putNull("default")
                    .set("type", JSON.createArrayNode().add("null").add("string")));
            assertThat(incompatibilities(e.getValue(), added, current)).as(e.getKey()).isEmpty();
        }
    }

    @Test
    void shouldRejectANewRequiredFieldInTheInput() throws IOException {
        for (String name : List.of("SessionEvent", "TenantPolicy")) {
            Schema current = ShippedSchemas.of(name);
            Schema required = altered(current, fields -> fields.addObject().put("name", "added_later").put("type", "string"));
            assertThat(incompatibilities(RULES.get(name), required, current)).as(name)
                    .singleElement().asString().contains("READER_FIELD_MISSING_DEFAULT").contains("added_later");
        }
    }

    @Test
    void shouldRejectARemovedFieldInTheSnapshot() throws IOException {
        Schema current = ShippedSchemas.of("ContextSnapshot");
        Schema removed = altered(current, fields -> {
            for (int i = 0; i < fields.size(); i++) {
                if (fields.get(i).get("name").asText().equals("snapshot_id")) fields.remove(i);
            }
        });
        assertThat(removed.getField("snapshot_id")).isNull();
        assertThat(incompatibilities(Rule.FORWARD, removed, current))
                .singleElement().asString().contains("READER_FIELD_MISSING_DEFAULT").contains("snapshot_id");
    }

    @Test
    void shouldRejectAChangedFieldType() throws IOException {
        for (Map.Entry<String, Rule> e : RULES.entrySet()) {
            Schema current = ShippedSchemas.of(e.getKey());
            Schema changed = altered(current, fields -> ((ObjectNode) fields.get(0)).put("type", "boolean"));
            assertThat(incompatibilities(e.getValue(), changed, current)).as(e.getKey()).isNotEmpty();
        }
    }

    /** The released versions per schema name, oldest first. */
    private static Map<String, List<Path>> released() throws IOException {
        Map<String, List<Path>> out = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(RELEASED)) {
            for (Path file : files.sorted().toList()) {
                Matcher m = RELEASED_NAME.matcher(file.getFileName().toString());
                assertThat(m.matches()).as("released file name <Name>-v<N>.avsc: " + file).isTrue();
                out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(file);
            }
        }
        out.values().forEach(l -> l.sort((a, b) -> Integer.compare(version(a), version(b))));
        return out;
    }

    private static int version(Path file) {
        Matcher m = RELEASED_NAME.matcher(file.getFileName().toString());
        if (!m.matches()) throw new IllegalArgumentException(file.toString());
        return Integer.parseInt(m.group(2));
    }

    private static Schema parse(Path file) throws IOException {
        return new Schema.Parser().parse(Files.readString(file, StandardCharsets.UTF_8));
    }

    private interface FieldEdit {
        void apply(ArrayNode fields);
    }

    /** A copy of {@code schema} with its top-level fields edited. */
    private static Schema altered(Schema schema, FieldEdit edit) throws IOException {
        ObjectNode json = (ObjectNode) JSON.readTree(schema.toString());
        edit.apply((ArrayNode) json.get("fields"));
        return new Schema.Parser().parse(JSON.writeValueAsString(json));
    }
}
