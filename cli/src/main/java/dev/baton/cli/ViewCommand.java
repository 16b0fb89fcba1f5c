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

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.replay.Jsonl;
import dev.baton.service.command.VersionProvider;
import dev.baton.service.viewer.ReportWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton view FILE -o report.html}: a file of snapshots as one self-contained HTML page to read them in. */
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
                    + "skipped."
        },
        footerHeading = "%n",
        footer = {
            "Files ending in .gz are read gzip-compressed; - means stdin.",
            "",
            "Examples:",
            "  ./baton view out.jsonl -o report.html",
            "  ./baton backfill -i in.jsonl -o eval.jsonl --handoff-at error --handoff-to claude-opus && \\",
            "      ./baton view eval.jsonl -o eval.html",
            "",
            "Exit codes: 0 written; 1 the input cannot be read or the output written, or no line is a snapshot;",
            "            2 wrong command line."
        })
public final class ViewCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(index = "0", paramLabel = "FILE", description = "Snapshots, one JSON object per line.")
    Path file;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "HTML", description = "The page to write.")
    Path output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
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
}
