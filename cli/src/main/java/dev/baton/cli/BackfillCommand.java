package dev.baton.cli;

import dev.baton.service.command.VersionProvider;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import dev.baton.replay.BackfillOptions;
import dev.baton.replay.BackfillRunner;
import dev.baton.replay.HandoffTriggers;
import dev.baton.service.command.ClusterOptions;
import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.replay.importer.ImportReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code baton backfill}: replay a JSONL export of session events and write every snapshot. */
@Command(
        name = "backfill",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Replay recorded session events and write the snapshot of every hand-off.",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Reads SessionEvents from a JSONL file, runs them through the real topology (on a Kafka "
                    + "broker inside this process, unless --bootstrap-servers is given) and writes every "
                    + "ContextSnapshot as JSONL as soon as it is ready, in the input order of the hand-offs, in bounded "
                    + "memory whatever the input's size. The same input always gives byte-identical output.",
            "",
            "At the end of the input nothing waits for the wall clock: gaps that cannot fill and "
                    + "hand-offs still waiting for turns are settled at once with a TURNS_MISSING marker, and "
                    + "closed sessions keep their state to the end. Records that break the contract go to "
                    + "--dead-letters as {error_code, error_message, source_line, record}; a line over the record limit "
                    + "(1 MiB) is dead-lettered OVERSIZED with its first 64 KiB, without being read whole. Progress on stderr."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Files ending in .gz are read and written gzip-compressed; - means stdin / stdout.",
            "",
            "Examples:",
            "  ./baton backfill -i sessions-2025.jsonl.gz -o snapshots.jsonl.gz --dead-letters rejected.jsonl",
            "  ./baton backfill -i sessions.jsonl -o - | jq -r .snapshot_id",
            "  ./baton backfill -i sessions.jsonl -o eval.jsonl --handoff-at error --handoff-to claude-opus --sample 0.1",
            "  ./baton backfill --from atif --tenant acme runs/ --handoff-last claude-opus -o snapshots.jsonl",
            "      recorded ATIF trajectories converted (as `baton import` does) and replayed in one go",
            "",
            "Exit codes: 0 every record was applied, counted as a duplicate or dead-lettered;",
            "            1 failed; 2 wrong command line; 3 finished, but not every record was accounted for."
        })
public final class BackfillCommand implements Callable<Integer> {

    @Option(names = {"-i", "--input"}, paramLabel = "FILE",
            description = "SessionEvents, one JSON object per line. Required unless --from is given.")
    Path input;

    @Mixin
    ImportOptions importOptions;

    @Parameters(arity = "0..*", paramLabel = "INPUT",
            description = "With --from: recorded files or directories to convert first (see `baton help import`).")
    List<Path> recorded;

    @Option(names = "--events", paramLabel = "FILE",
            description = "With --from: keep the converted SessionEvents in FILE (default: a temporary file, deleted).")
    Path events;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "Where to write the ContextSnapshots (replaced if it exists). Required.")
    Path output;

    @Option(names = "--dead-letters", paramLabel = "FILE",
            description = "Where to write rejected records (default: not written, only counted).")
    Path deadLetters;

    @Option(names = "--outcomes", paramLabel = "FILE",
            description = "Replay the hand-off receipts of the input (lines with content_sha256 and no tenant_id) and "
                    + "write the HandoffOutcomes they give here, one per line in the input order of their receipts "
                    + "(default: receipts off; a receipt line is refused).")
    Path outcomes;

    @Mixin
    ClusterOptions cluster = new ClusterOptions();

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "PT30M",
            description = "Give up when the results have not all arrived after this long (ISO-8601, default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--no-progress", negatable = false, description = "Do not show progress on stderr.")
    boolean noProgress;

    @Option(names = "--handoff-at", paramLabel = "every:N|error|last|seqs:FILE",
            description = "Add synthetic hand-offs (repeatable): after every N turns of a session (by seq), after every "
                    + "turn with an ERROR tool step, once at the end of each session, or after the turns a file names "
                    + "(tenant session seq [to_agent [target]] per line). Their ids start with baton-synthetic: and their "
                    + "snapshots have \"synthetic\": true; real hand-offs are served as usual.")
    List<String> handoffAt;

    @Option(names = "--handoff-to", paramLabel = "AGENT",
            description = "The receiving agent of the synthetic hand-offs (a seqs file may name its own).")
    String handoffTo;


    @Option(names = "--sample", paramLabel = "FRACTION", defaultValue = "1.0",
            description = "Replay only this fraction of the sessions, chosen by a hash of tenant/session (the same "
                    + "sessions on every run); lines that name no session are replayed (and dead-lettered) as usual.")
    double sample;

    @Override
    public Integer call() throws Exception {
        if (output == null || (input == null && !importOptions.given())) {
            throw new AppFailure(ExitCodes.USAGE, "backfill needs --input FILE (or --from FORMAT with recorded INPUT files) "
                    + "and --output FILE; see `baton help backfill`");
        }
        if (!importOptions.given()) {
            if (recorded != null && !recorded.isEmpty()) {
                throw new AppFailure(ExitCodes.USAGE, "INPUT files are converted only with --from (atif, openai-chat or otel-genai)");
            }
            return backfill(input);
        }
        // --from: convert first (as `baton import` does), then replay the converted events as they are
        if (input != null) throw new AppFailure(ExitCodes.USAGE, "--from converts INPUT files: give them instead of --input");
        if (recorded == null || recorded.isEmpty()) throw new AppFailure(ExitCodes.USAGE, "--from needs recorded INPUT files");
        Path converted = events != null ? events : Files.createTempFile("baton-import-", ".jsonl");
        try {
            ImportReport report = importOptions.run(recorded, converted);
            int code = backfill(converted);
            return code == ExitCodes.OK && report.rejected() > 0 ? ExitCodes.INCOMPLETE : code;
        } finally {
            if (events == null) Files.deleteIfExists(converted);
        }
    }

    private int backfill(Path eventsFile) throws Exception {
        return new BackfillRunner(new BackfillOptions(eventsFile, output, deadLetters, cluster.bootstrapServers(),
                cluster.config(), timeout, noProgress,
                HandoffTriggers.parse(handoffAt, handoffTo, importOptions.handoffTarget.name()),
                sample, outcomes)).run();
    }
}
