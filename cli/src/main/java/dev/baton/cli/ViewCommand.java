package dev.baton.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.consumer.SnapshotPrompts;
import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequests;
import dev.baton.consumer.dialect.RequestOptions;
import dev.baton.replay.Jsonl;
import dev.baton.service.command.VersionProvider;
import dev.baton.service.viewer.ReportWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton view FILE -o report.html}: a file of snapshots as one self-contained HTML page to read them in; with
 * {@code --dialect NAME}, the request each snapshot's receiver gets in that receiver dialect (docs/receivers.md), as the
 * consumer kits build it.
 */
@Command(
        name = "view",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Write a file of snapshots as one HTML page that shows what each receiving agent gets.",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Reads ContextSnapshots, one JSON object per line (the output of backfill, an eval set of "
                    + "backfill --handoff-at, demo --jsonl), and writes one HTML file that needs nothing else: no "
                    + "network, opens from disk. It lists the snapshots (filter by session, receiver, synthetic "
                    + "or real, trigger) and shows one at a time: framing, brick, messages with narrated tool "
                    + "steps set apart, every truncation marker linked to its entry, the retention plan over the "
                    + "session's seqs, sizes, token counts, parity, and the messages that changed since the "
                    + "session's previous hand-off in the file. Lines that are not snapshots are reported and "
                    + "skipped.",
            "",
            "With --dialect it writes no page: it prints, one JSON line per snapshot, the request its receiver gets "
                    + "in that dialect, exactly as the consumer kits build it (docs/receivers.md): openai-chat, "
                    + "openai-responses, anthropic-messages, gemini, or a chat-template profile "
                    + "(chat-template:chatml-tools, :single-system, :llama3-json, :mistral-tools, :alternating). "
                    + "With --snapshot ID, only that snapshot's line, indented."
        },
        footerHeading = "%n",
        footer = {
            "Files ending in .gz are read gzip-compressed; - means stdin.",
            "",
            "Examples:",
            "  ./baton view out.jsonl -o report.html",
            "  ./baton backfill -i in.jsonl -o eval.jsonl --handoff-at error --handoff-to claude-opus && \\",
            "      ./baton view eval.jsonl -o eval.html",
            "  ./baton view out.jsonl --dialect anthropic-messages --snapshot acme/s-1/h1 --model claude-sonnet-4-5",
            "",
            "Exit codes: 0 written; 1 the input cannot be read or the output written, no line is a snapshot, or",
            "            --snapshot names none of them; 2 wrong command line (an unknown dialect among them)."
        })
public final class ViewCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Parameters(index = "0", paramLabel = "FILE", description = "Snapshots, one JSON object per line.")
    Path file;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT",
            description = "The page to write (required without --dialect); with --dialect, the file of requests "
                    + "(default: standard output).")
    Path output;

    @Option(names = "--dialect", paramLabel = "DIALECT",
            description = "Print each snapshot's request in this receiver dialect instead of writing a page.")
    String dialect;

    @Option(names = "--snapshot", paramLabel = "ID", description = "With --dialect: only this snapshot_id, indented.")
    String snapshotId;

    @Option(names = "--model", paramLabel = "MODEL", defaultValue = RequestOptions.DEFAULT_MODEL,
            description = "With --dialect: the request's model (default: ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--max-tokens", paramLabel = "N", defaultValue = "" + RequestOptions.DEFAULT_MAX_TOKENS,
            description = "With --dialect: max_tokens, where the dialect requires it (default: ${DEFAULT-VALUE}).")
    int maxTokens;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (dialect != null) {
            return requests();
        }
        if (output == null) {
            throw new AppFailure(ExitCodes.USAGE, "-o HTML is required (or --dialect NAME to print requests)");
        }
        if (snapshotId != null) {
            throw new AppFailure(ExitCodes.USAGE, "--snapshot goes with --dialect");
        }
        PrintWriter err = spec.commandLine().getErr();
        int snapshots;
        Path parent = output.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        try (Jsonl.Reader reader = Jsonl.reader(file);
                Writer out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(output),
                        StandardCharsets.UTF_8), 1 << 16);
                ReportWriter report = new ReportWriter(out, file.getFileName() == null ? "-" : file.getFileName().toString())) {
            byte[] line;
            while ((line = reader.next()) != null) {
                if (Jsonl.isBlank(line)) continue;
                JsonNode node;
                try {
                    node = JSON.readTree(line);
                } catch (JsonProcessingException e) {
                    node = null;
                }
                if (!ReportWriter.isSnapshot(node)) {
                    report.skip();
                    err.println("line " + reader.lineNumber() + ": not a snapshot (a JSON object with snapshot_id, "
                            + "tenant_id, session_id and handoff_id); skipped");
                    continue;
                }
                report.add(node);
            }
            snapshots = report.snapshots();
        }
        err.println(snapshots + " snapshots written to " + output);
        err.flush();
        if (snapshots == 0) {
            throw new AppFailure(ExitCodes.FAILED, "no line of " + file + " is a snapshot");
        }
        return ExitCodes.OK;
    }

    /** {@code --dialect}: the kits' output line of every snapshot (or of the one {@code --snapshot} names). */
    private int requests() throws IOException {
        Dialect chosen;
        RequestOptions options;
        try {
            chosen = Dialect.parse(dialect);
            options = new RequestOptions(model, maxTokens);
        } catch (IllegalArgumentException e) {
            throw new AppFailure(ExitCodes.USAGE, e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        int written = 0;
        int snapshots = 0;
        Writer out = output == null ? null : Files.newBufferedWriter(output, StandardCharsets.UTF_8);
        try (Jsonl.Reader reader = Jsonl.reader(file)) {
            Writer sink = out != null ? out : spec.commandLine().getOut();
            byte[] line;
            while ((line = reader.next()) != null) {
                if (Jsonl.isBlank(line)) continue;
                JsonNode node;
                try {
                    // readJson keeps each call's arguments as their exact text, as the kits map them
                    node = SnapshotPrompts.readJson(new String(line, StandardCharsets.UTF_8));
                } catch (IOException e) {
                    node = null;
                }
                if (!ReportWriter.isSnapshot(node)) {
                    err.println("line " + reader.lineNumber() + ": not a snapshot; skipped");
                    continue;
                }
                snapshots++;
                if (snapshotId != null && !snapshotId.equals(node.path("snapshot_id").asText())) continue;
                ObjectNode request;
                try {
                    request = ReceiverRequests.forTarget(node, chosen, options);
                } catch (IllegalArgumentException e) {
                    err.println("line " + reader.lineNumber() + ": " + e.getMessage() + "; skipped");
                    continue;
                }
                sink.write(snapshotId != null ? PRETTY.writeValueAsString(request) : JSON.writeValueAsString(request));
                sink.write('\n');
                written++;
            }
            sink.flush();
        } finally {
            if (out != null) out.close();
        }
        err.flush();
        if (snapshots == 0) throw new AppFailure(ExitCodes.FAILED, "no line of " + file + " is a snapshot");
        if (snapshotId != null && written == 0) {
            throw new AppFailure(ExitCodes.FAILED, "no snapshot " + snapshotId + " in " + file);
        }
        return ExitCodes.OK;
    }
}
