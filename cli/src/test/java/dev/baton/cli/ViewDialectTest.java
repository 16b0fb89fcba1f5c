package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.app.ExitCodes;
import dev.baton.consumer.SnapshotPrompts;
import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequests;
import dev.baton.consumer.dialect.RequestCheck;
import dev.baton.consumer.dialect.RequestOptions;

/**
 * {@code baton view FILE --dialect NAME}: the request each snapshot's receiver gets in a dialect, as the consumer kits
 * build it (docs/receivers.md), on the demo's snapshots.
 */
class ViewDialectTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path demoSnapshots() throws IOException {
        Path file = dir.resolve("demo.jsonl");
        try (InputStream in = new GZIPInputStream(getClass().getResourceAsStream("/viewer/demo-snapshots.jsonl.gz"))) {
            Files.write(file, in.readAllBytes());
        }
        return file;
    }

    @Test
    void shouldPrintTheKitsLineOfEverySnapshotInTheChosenDialect() throws IOException {
        Path file = demoSnapshots();
        List<String> lines = Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();

        CommandOutput run = CommandOutput.run("view", file.toString(), "--dialect", "anthropic-messages",
                "--model", "claude-sonnet-4-5");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
        List<String> printed = run.out().lines().toList();
        assertThat(printed).hasSameSizeAs(lines);
        RequestOptions options = new RequestOptions("claude-sonnet-4-5", RequestOptions.DEFAULT_MAX_TOKENS);
        int local = 0;
        for (int i = 0; i < lines.size(); i++) {
            JsonNode snapshot = SnapshotPrompts.readJson(lines.get(i));
            JsonNode line = JSON.readTree(printed.get(i));
            assertThat(line).isEqualTo(JSON.readTree(JSON.writeValueAsString(
                    ReceiverRequests.forTarget(snapshot, Dialect.ANTHROPIC_MESSAGES, options))));
            if ("LOCAL".equals(snapshot.path("target").asText())) {
                local++;
                assertThat(line.path("dialect").asText()).isEqualTo("anthropic-messages");
                assertThat(line.at("/request/model").asText()).isEqualTo("claude-sonnet-4-5");
                assertThat(RequestCheck.violations(snapshot, Dialect.ANTHROPIC_MESSAGES,
                        ReceiverRequests.build(snapshot, Dialect.ANTHROPIC_MESSAGES, options))).isEmpty();
            } else {
                assertThat(line.has("cli_prompt")).isTrue();
            }
        }
        assertThat(local).isPositive();
    }

    @Test
    void shouldPrintOneSnapshotIndentedAndFailWhenTheIdIsNotThere() throws IOException {
        Path file = demoSnapshots();
        String id = JSON.readTree(Files.readAllLines(file).get(0)).path("snapshot_id").asText();

        CommandOutput one = CommandOutput.run("view", file.toString(), "--dialect", "gemini", "--snapshot", id);
        assertThat(one.exitCode()).as(one.err()).isEqualTo(ExitCodes.OK);
        assertThat(one.out()).startsWith("{\n");
        assertThat(JSON.readTree(one.out()).path("snapshot_id").asText()).isEqualTo(id);

        CommandOutput none = CommandOutput.run("view", file.toString(), "--dialect", "gemini", "--snapshot", "no/such/id");
        assertThat(none.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(none.err()).contains("no snapshot no/such/id");
    }

    @Test
    void shouldRefuseAnUnknownDialectListingTheNames() throws IOException {
        CommandOutput run = CommandOutput.run("view", demoSnapshots().toString(), "--dialect", "claude");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        List<String> names = new ArrayList<>();
        Dialect.all().forEach(d -> names.add(d.name()));
        assertThat(run.err()).contains("unknown dialect \"claude\"").contains(names);
    }

    @Test
    void shouldStillAskForThePageWithoutADialect() throws IOException {
        CommandOutput run = CommandOutput.run("view", demoSnapshots().toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("-o HTML is required");
    }
}
