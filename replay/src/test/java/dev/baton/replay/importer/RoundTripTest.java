package dev.baton.replay.importer;

import static dev.baton.replay.importer.Imported.resource;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.engine.model.ToolCall;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.replay.importer.ImportSettings.Format;

/**
 * Events → snapshot: every tool call and result recorded in a trajectory reaches the snapshot a receiver gets, and
 * the receiver sees everything the primary's own rendering shows (R9 parity 100%). The expectations are read from
 * the fixture with plain Jackson, not from the importer.
 */
class RoundTripTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @CsvSource({
        "atif/v1_0-single-call.json, run-v10, claude-opus",
        "atif/v1_4-escalation.json, run-esc-4, claude-opus",
        "atif/v1_4-escalation.json, run-esc-4, claude-opus-4",
        "atif/v1_4-escalation.json, run-esc-4, qwen2_5-coder-7b",
        "atif/v1_2-hostile.json, run-hostile, claude-opus",
        "atif/v1_7-child.json, run-77-licences, qwen3-8b"
    })
    void shouldCarryEveryRecordedCallAndResultIntoTheSnapshotWithFullParity(String fixture, String session, String receiver)
            throws IOException {
        Path file = resource(fixture);
        Imported out = Imported.run(ImportSettings.defaults(Format.ATIF, "acme"), file);

        Snapshot snapshot = out.render(session, receiver);

        assertThat(snapshot.parity().referenceItems()).isPositive();
        assertThat(snapshot.parity().coveredItems()).isEqualTo(snapshot.parity().referenceItems());
        assertThat(snapshot.truncations()).isEmpty();
        String seen = visible(snapshot);
        JsonNode trajectory = JSON.readTree(file.toFile());
        int calls = 0;
        for (JsonNode step : trajectory.get("steps")) {
            for (JsonNode call : step.path("tool_calls")) {
                assertThat(seen).as("tool of %s", call).contains(call.get("function_name").asText());
                assertThat(arguments(snapshot)).as("arguments of %s", call).contains(call.get("arguments"));
                calls++;
            }
            for (JsonNode result : step.path("observation").path("results")) {
                assertThat(seen).as("result %s", result).contains(result.get("content").asText());
            }
            if (!step.path("message").asText().isEmpty()) assertThat(seen).contains(step.get("message").asText());
        }
        assertThat(calls).isPositive();
    }

    private static final java.util.regex.Pattern NARRATED_CALL =
            java.util.regex.Pattern.compile("^\\[\\S+ called [A-Za-z0-9_-]+\\((.*)\\)\\]$");

    /** The arguments of every call the receiver sees, native or narrated, as JSON trees. */
    private static List<JsonNode> arguments(Snapshot s) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (Message m : s.messages()) {
            for (ToolCall c : m.toolCalls()) out.add(JSON.readTree(c.arguments()));
            if (m.role().equals("system")) {
                for (String line : m.content().split("\n")) {
                    java.util.regex.Matcher x = NARRATED_CALL.matcher(line);
                    if (x.matches()) out.add(JSON.readTree(x.group(1)));
                }
            }
        }
        return out;
    }

    /** Everything a receiver reads: contents (R2 undone) and its own calls' names and arguments. */
    private static String visible(Snapshot s) {
        List<String> parts = new ArrayList<>();
        for (Message m : s.messages()) {
            parts.add(m.role().equals("system") ? Escaping.unescape(m.content()) : m.content());
            for (ToolCall c : m.toolCalls()) parts.add(c.tool() + " " + c.arguments());
        }
        return String.join("\n", parts);
    }
}
