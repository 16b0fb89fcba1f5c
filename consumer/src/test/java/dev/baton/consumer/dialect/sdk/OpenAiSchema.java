package dev.baton.consumer.dialect.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Assumptions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

/**
 * OpenAI's published OpenAPI spec (openai/openai-openapi, pinned in {@code <repo>/../shared/receivers/}, read in
 * place): {@code components.schemas.CreateChatCompletionRequest} and everything it references, validated as JSON
 * Schema 2020-12 by networknt's validator. The shared folder is {@code $SHARED_DATA_DIR} when set, else
 * {@code <repo>/../shared}; when it is missing the test that needs it is skipped, and fails under {@code CI=true}.
 */
final class OpenAiSchema {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Schema chatRequest;

    private OpenAiSchema() {
    }

    /** The shared folder of third-party receiver data, or an aborted (skipped) test; under CI a failure. */
    static Path sharedDir() {
        String override = System.getenv("SHARED_DATA_DIR");
        Path dir = override != null && !override.isEmpty() ? Paths.get(override)
                : Paths.get("..", "..", "shared").toAbsolutePath().normalize();
        if (!Files.isDirectory(dir.resolve("receivers"))) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("the shared folder " + dir + " is needed under CI");
            }
            Assumptions.abort("shared folder " + dir + " missing (set SHARED_DATA_DIR)");
        }
        return dir;
    }

    /** The validation errors of {@code body} against CreateChatCompletionRequest (empty: valid). */
    static List<Error> chatRequestErrors(String body) {
        try {
            return schema().validate(JSON.readTree(body));
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + body, e);
        }
    }

    private static synchronized Schema schema() {
        if (chatRequest == null) {
            Path spec = sharedDir().resolve("receivers/openai-openapi/openapi.json.gz");
            JsonNode doc;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(spec))) {
                doc = JSON.readTree(in);
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + spec, e);
            }
            // a schema document of our own whose "#/components/schemas/..." references resolve inside the spec's
            // components, so the spec's own $refs work unchanged
            ObjectNode root = JSON.createObjectNode();
            root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            root.put("$ref", "#/components/schemas/CreateChatCompletionRequest");
            root.set("components", doc.get("components"));
            chatRequest = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(root);
        }
        return chatRequest;
    }
}
