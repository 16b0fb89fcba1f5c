package dev.baton.consumer.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.consumer.SnapshotPrompts;

/**
 * The shared test vectors of the dialects, examples/consumers/testdata/dialects.jsonl: each hand-written snapshot of
 * {@link DialectCases} run through every dialect, with the Java kit's output line as {@code expected}. The Python and
 * Node kits must reproduce them (as JSON values; the Node kit re-spells number literals, docs/receivers.md).
 *
 * <p>The {@code expected} values are this kit's output. After a deliberate change of the mapping, regenerate the file
 * with {@code mvn -q -o -pl consumer -am test -Dtest=DialectVectorsTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dbaton.vectors.write=true}, then read the diff against docs/receivers.md before committing it.
 */
class DialectVectorsTest {

    static final Path VECTORS = Paths.get("..", "examples", "consumers", "testdata", "dialects.jsonl").toAbsolutePath()
            .normalize();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RequestOptions OPTIONS = new RequestOptions("m", 4096);

    /** The file's lines as this kit writes them from the cases. */
    static List<String> generate() throws IOException {
        List<String> lines = new ArrayList<>();
        for (DialectCases.Case c : DialectCases.all()) {
            JsonNode snapshot = SnapshotPrompts.readJson(c.snapshot());
            for (Dialect d : Dialect.all()) {
                String expected = ReceiverRequest.write(ReceiverRequests.forTarget(snapshot, d, OPTIONS));
                lines.add("{\"name\":" + DialectCases.q(c.name()) + ",\"reason\":" + DialectCases.q(c.reason())
                        + ",\"snapshot\":" + c.snapshot() + ",\"dialect\":" + DialectCases.q(d.name())
                        + ",\"options\":{\"model\":\"m\",\"max_tokens\":4096},\"expected\":" + expected + "}");
            }
        }
        return lines;
    }

    @Test
    void shouldHaveTheVectorsFileThatTheCasesGenerate() throws Exception {
        DialectCases.validate();
        List<String> lines = generate();
        if (Boolean.getBoolean("baton.vectors.write")) {
            Files.write(VECTORS, lines, StandardCharsets.UTF_8);
        }
        assertThat(Files.readAllLines(VECTORS, StandardCharsets.UTF_8)).containsExactlyElementsOf(lines);
    }

    @Test
    void shouldReproduceEveryVectorByteForByte() throws Exception {
        List<String> lines = Files.readAllLines(VECTORS, StandardCharsets.UTF_8);
        assertThat(lines).hasSizeGreaterThanOrEqualTo(20 * Dialect.all().size());
        for (String line : lines) {
            JsonNode vector = JSON.readTree(line);
            JsonNode snapshot = SnapshotPrompts.readJson(member(line, "snapshot"));
            Dialect dialect = Dialect.parse(vector.get("dialect").asText());
            RequestOptions options = new RequestOptions(vector.at("/options/model").asText(),
                    vector.at("/options/max_tokens").asInt());
            String actual = ReceiverRequest.write(ReceiverRequests.forTarget(snapshot, dialect, options));
            assertThat(actual).as("%s in %s", vector.get("name").asText(), dialect).isEqualTo(member(line, "expected"));
        }
    }

    /** The exact text of a top-level member's value in a line (so literals are compared as written). */
    static String member(String line, String name) throws IOException {
        try (JsonParser p = JSON.getFactory().createParser(line)) {
            p.nextToken();
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                boolean wanted = name.equals(p.currentName());
                p.nextToken();
                int start = (int) p.currentTokenLocation().getCharOffset();
                p.skipChildren();
                if (wanted) {
                    return line.substring(start, (int) p.currentLocation().getCharOffset());
                }
            }
        }
        throw new IOException("no member " + name);
    }
}
