package dev.baton.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.engine.model.Target;
import dev.baton.replay.Jsonl;
import dev.baton.replay.importer.ImportReport;
import dev.baton.replay.importer.ImportSettings;
import dev.baton.replay.importer.Importer;
import picocli.CommandLine.Option;

/**
 * The conversion options shared by {@code baton import} and {@code baton backfill --from} (docs/import.md), and the
 * run that prints what the conversion did.
 */
final class ImportOptions {

    /** How many notes are printed on stderr before "… N more". */
    static final int PRINTED_NOTES = 20;

    @Option(names = "--from", paramLabel = "FORMAT",
            description = "The recorded format: atif (ATIF trajectories, versions 1.0–1.7), openai-chat "
                    + "({\"messages\": [...]} chat logs) or otel-genai (OTLP JSON traces with the OpenTelemetry GenAI "
                    + "conventions, e.g. the collector's file exporter output).")
    String from;

    @Option(names = "--tenant", paramLabel = "TENANT",
            description = "The tenant of every imported session (1–128 characters of [A-Za-z0-9._:-]).")
    String tenant;

    @Option(names = "--session-id-from", paramLabel = "SOURCE", defaultValue = "auto",
            description = "Where a session's id comes from: auto (the recorded session_id, else trajectory_id / id, else "
                    + "the file name), session_id, trajectory_id, or file (the file name). Default: ${DEFAULT-VALUE}.")
    String sessionIdFrom;

    @Option(names = "--agent-name-from", paramLabel = "SOURCE", defaultValue = "model",
            description = "An agent turn's agent: model (ATIF step model_name, else agent.model_name, else agent.name; chat "
                    + "message or log model), or agent (ATIF agent.name; chat message name). Default: ${DEFAULT-VALUE}.")
    String agentNameFrom;

    @Option(names = "--include-reasoning", negatable = false,
            description = "Include ATIF reasoning_content (chat reasoning_content) as the agent's text. Default: left out.")
    boolean includeReasoning;

    @Option(names = "--handoff-last", paramLabel = "TO_AGENT",
            description = "Add one hand-off to TO_AGENT after the last turn of every session (handoff_id import-last), so "
                    + "that backfill writes the snapshot TO_AGENT would get at the end. Default: no hand-offs.")
    String handoffLast;

    @Option(names = "--handoff-target", paramLabel = "TARGET", defaultValue = "LOCAL",
            description = "Target of those hand-offs (in backfill also of the --handoff-at ones): LOCAL or CLAUDE_CLI. "
                    + "Default: ${DEFAULT-VALUE}.")
    Target handoffTarget;

    @Option(names = "--max-record-bytes", paramLabel = "BYTES", defaultValue = "1048576",
            description = "Every event (key and value) stays within this many bytes, the input topic's record limit: "
                    + "larger tool activity is split over several turns, larger text cut around a visible marker, and both "
                    + "reported. Default: ${DEFAULT-VALUE}.")
    int maxRecordBytes;

    @Option(names = "--report", paramLabel = "FILE",
            description = "Write every note of the conversion (rejected inputs, mapped ids and names, cuts) as JSONL "
                    + "{source, kind, message}.")
    Path report;

    boolean given() {
        return from != null;
    }

    ImportSettings settings() {
        if (from == null) throw new AppFailure(ExitCodes.USAGE, "--from is required (atif, openai-chat or otel-genai)");
        if (tenant == null) throw new AppFailure(ExitCodes.USAGE, "--tenant is required with --from");
        try {
            ImportSettings.Format format = ImportSettings.Format.parse(from);
            ImportSettings.SessionIdFrom sid = ImportSettings.SessionIdFrom.valueOf(
                    sessionIdFrom.toUpperCase(Locale.ROOT).replace('-', '_'));
            ImportSettings.AgentNameFrom agent = ImportSettings.AgentNameFrom.valueOf(agentNameFrom.toUpperCase(Locale.ROOT));
            return new ImportSettings(format, tenant, sid, agent, includeReasoning, handoffLast, handoffTarget, maxRecordBytes);
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            if (m != null && m.startsWith("No enum constant")) {
                m = "unknown value in " + m.substring(m.lastIndexOf('.') + 1) + ": see `baton help import`";
            }
            throw new AppFailure(ExitCodes.USAGE, m);
        }
    }

    /** Converts {@code inputs} into {@code output} and says on stderr what was done; returns the report. */
    ImportReport run(List<Path> inputs, Path output) throws IOException {
        ImportSettings settings = settings();
        ImportReport r;
        try {
            r = new Importer(settings).run(inputs, output);
        } catch (NoSuchFileException e) {
            throw new AppFailure(ExitCodes.FAILED, "no such input: " + e.getFile());
        }
        PrintWriter err = new PrintWriter(System.err, true);
        err.println(String.format(Locale.ROOT, "import: %,d files, %,d %s → %,d sessions, %,d events (%,d turns, "
                        + "%,d tool steps, %,d hand-offs) → %s", r.inputs(), r.documents(),
                documents(settings.format()), r.sessions(), r.events(),
                r.turns(), r.toolSteps(), r.handoffs(), output.toString().equals("-") ? "stdout" : output.toString()));
        Map<ImportReport.Kind, Integer> counts = r.counts();
        if (!counts.isEmpty()) {
            StringBuilder sb = new StringBuilder("import: notes");
            counts.forEach((k, n) -> sb.append(' ').append(k.name().toLowerCase(Locale.ROOT)).append('=').append(n));
            err.println(sb);
        }
        int printed = 0;
        for (ImportReport.Note n : r.notes()) {
            // every rejected input is printed; other notes up to a limit
            if (n.kind() == ImportReport.Kind.REJECTED || printed < PRINTED_NOTES) {
                err.println("import: " + n.source() + ": " + n.kind().name().toLowerCase(Locale.ROOT) + ": " + n.message());
                if (n.kind() != ImportReport.Kind.REJECTED) printed++;
            }
        }
        long other = r.notes().stream().filter(n -> n.kind() != ImportReport.Kind.REJECTED).count();
        if (other > printed) {
            err.println("import: … " + (other - printed) + " more notes" + (report == null ? " (--report FILE writes them all)" : ""));
        }
        if (report != null) writeReport(r);
        return r;
    }

    /** What one document of a format is called. */
    private static String documents(ImportSettings.Format format) {
        return switch (format) {
            case ATIF -> "trajectories";
            case OPENAI_CHAT -> "conversations";
            case OTEL_GENAI -> "trace exports";
        };
    }

    private void writeReport(ImportReport r) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        try (Jsonl.Writer w = Jsonl.writer(report)) {
            for (ImportReport.Note n : r.notes()) {
                ObjectNode o = mapper.createObjectNode();
                o.put("source", n.source());
                o.put("kind", n.kind().name());
                o.put("message", n.message());
                w.write(mapper.writeValueAsBytes(o));
            }
        }
    }
}
