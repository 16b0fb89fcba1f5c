package dev.baton.serde;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.TenantPolicy;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schema changes stay compatible both ways: a consumer on the schema before the token fields reads what Baton writes
 * now (the new optional fields are skipped), and a consumer on the current schema reads what Baton wrote before (the
 * new fields take their null defaults). The earlier schemas are copies kept as test resources.
 */
class SchemaCompatibilityTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ContextSnapshot", "TenantPolicy"})
    void shouldReadOldAndNewRecordsBothWays(String name) throws IOException {
        Schema current = name.equals("ContextSnapshot") ? ContextSnapshot.getClassSchema() : TenantPolicy.getClassSchema();
        Schema before = earlier(name);

        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(before, current).getType())
                .as("old consumers read new records")
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(current, before).getType())
                .as("new consumers read old records")
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        for (Schema.Field f : current.getFields()) {
            if (before.getField(f.name()) == null) {
                assertThat(f.hasDefaultValue()).as("new field %s has a default", f.name()).isTrue();
            }
        }
    }

    /** The schema as it was before the token fields, with the shared named types of the current schemas directory. */
    private static Schema earlier(String name) throws IOException {
        Schema.Parser parser = new Schema.Parser();
        Path dir = Path.of("..", "schemas", "src", "main", "avro");
        parser.parse(dir.resolve("Target.avsc").toFile());
        parser.parse(dir.resolve("ToolCall.avsc").toFile());
        try (InputStream in = SchemaCompatibilityTest.class.getResourceAsStream(
                "/schemas-before-issue-11/" + name + ".avsc")) {
            return parser.parse(in);
        }
    }
}
