package dev.baton.cli;

import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.avro.ContextSnapshot;
import dev.baton.cli.data.ClusterClients;
import dev.baton.cli.data.Durations;
import dev.baton.cli.data.SnapshotFilter;
import dev.baton.cli.data.TopicReader;
import dev.baton.egress.ContextSnapshotReader;
import dev.baton.replay.Jsonl;
import dev.baton.replay.SnapshotPrinter;
import dev.baton.serde.AvroJson;
import dev.baton.serde.SchemaRegistryUnavailableException;
import dev.baton.service.command.ConnectionOptions;
import dev.baton.service.command.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton tail}: the snapshots topic (or a backfill output file), decoded and shown as {@code demo} does. */
@Command(
        name = "tail",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Show the context snapshots Baton writes, as they come (or those of a backfill output file).",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Follows baton.context-snapshots (read_committed: only snapshots of committed transactions), decodes "
                    + "each one (Avro through the schema registry, or JSON, as --format says) and prints it as "
                    + "`baton demo` does, or as one JSON object per line with --jsonl. Without --from-beginning or "
                    + "--since it shows only new snapshots. Stops on Ctrl-C, after --max snapshots, or with --to-end "
                    + "at the end of what the topic held when it started. With --file it reads a snapshot file "
                    + "(.jsonl or .jsonl.gz, e.g. backfill's output) instead of Kafka.",
            "",
            "Connection, security, registry and format settings come from the flags, BATON_* variables and "
                    + "--config as for `run`."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Examples:",
            "  baton tail --bootstrap-servers kafka:9092 --schema-registry-url http://registry:8081",
            "  baton tail --config baton.properties --since 1h --tenant acme --to-agent billing --jsonl",
            "  baton tail --file snapshots.jsonl.gz --session s-42"
        })
public final class TailCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--file", paramLabel = "FILE",
            description = "Read this snapshot file (JSONL, gzip when it ends in .gz; - for stdin) instead of Kafka.")
    Path file;

    @Option(names = "--tenant", paramLabel = "TENANT", description = "Only this tenant's snapshots.")
    String tenant;

    @Option(names = "--session", paramLabel = "SESSION", description = "Only this session's snapshots.")
    String session;

    @Option(names = {"--to-agent", "--receiver"}, paramLabel = "AGENT",
            description = "Only snapshots handed to this agent (the receiver, to_agent).")
    String toAgent;

    @Option(names = "--synthetic", paramLabel = "true|false", arity = "0..1", fallbackValue = "true",
            description = "Only synthetic snapshots (backfill --handoff-at), or with false only real ones.")
    Boolean synthetic;

    @Option(names = "--jsonl", description = "Print each snapshot whole as one JSON object per line.")
    boolean jsonl;

    @Option(names = "--from-beginning", description = "Start at the oldest snapshot the topic holds.")
    boolean fromBeginning;

    @Option(names = "--since", paramLabel = "DURATION", converter = Durations.class,
            description = "Start with the snapshots written in the last DURATION (90s, 15m, 2h, 7d).")
    Duration since;

    @Option(names = "--max", paramLabel = "N", description = "Stop after N snapshots shown.")
    Long max;

    @Option(names = "--to-end", description = "Stop at the end of what the topic holds now instead of following it.")
    boolean toEnd;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "15",
            description = "How long to wait for Kafka's metadata before giving up. Default: ${DEFAULT-VALUE}.")
    int timeoutSeconds;

    private long shown;

    @Override
    public Integer call() throws Exception {
        if (max != null && max < 1) throw new AppFailure(ExitCodes.USAGE, "--max must be at least 1");
        if (fromBeginning && since != null) throw new AppFailure(ExitCodes.USAGE, "give --from-beginning or --since, not both");
        SnapshotFilter filter = new SnapshotFilter(tenant, session, toAgent, synthetic);
        PrintStream out = System.out;
        SnapshotPrinter printer = new SnapshotPrinter(out);
        if (file != null) {
            readFile(filter, printer, out);
        } else {
            readTopic(filter, printer, out);
        }
        out.flush();
        return ExitCodes.OK;
    }

    private void readFile(SnapshotFilter filter, SnapshotPrinter printer, PrintStream out) throws Exception {
        ContextSnapshotReader reader = ContextSnapshotReader.json();
        try (Jsonl.Reader lines = Jsonl.reader(file)) {
            byte[] line;
            while ((line = lines.next()) != null) {
                if (Jsonl.isBlank(line)) continue;
                ContextSnapshot s;
                try {
                    s = reader.read(line);
                } catch (RuntimeException e) {
                    throw new AppFailure(ExitCodes.FAILED, file + " line " + lines.lineNumber()
                            + " is not a snapshot: " + e.getMessage());
                }
                if (!show(s, filter, printer, out)) return;
            }
        } catch (NoSuchFileException e) {
            throw new AppFailure(ExitCodes.FAILED, "no such file: " + file);
        }
    }

    private void readTopic(SnapshotFilter filter, SnapshotPrinter printer, PrintStream out) throws Exception {
        ClusterClients clients = ClusterClients.load(connection);
        ContextSnapshotReader reader = ContextSnapshotReader.forFormat(clients.format(), clients.registry());
        String topic = clients.config().contextSnapshotsTopic();
        try (TopicReader topicReader = new TopicReader(clients.consumerProperties(), topic,
                Duration.ofSeconds(timeoutSeconds))) {
            if (fromBeginning) topicReader.seek(TopicReader.Start.BEGINNING);
            else if (since != null) topicReader.seekToTime(System.currentTimeMillis() - since.toMillis());
            else topicReader.seek(TopicReader.Start.END);
            TopicReader.Sink sink = r -> {
                ContextSnapshot s;
                try {
                    s = reader.read(r.value());
                } catch (SchemaRegistryUnavailableException e) {
                    throw new AppFailure(ExitCodes.FAILED, "schema registry unavailable: " + e.getMessage());
                } catch (RuntimeException e) {
                    // not Baton's record: say where it is and go on
                    System.err.printf("tail: %s/%d/%d cannot be read as a snapshot: %s%n", r.topic(), r.partition(),
                            r.offset(), e.getMessage());
                    return true;
                }
                return show(s, filter, printer, out);
            };
            if (toEnd) topicReader.readToEnd(sink);
            else topicReader.follow(sink);
        }
    }

    /** Prints the snapshot when it matches; false once --max are shown. */
    private boolean show(ContextSnapshot s, SnapshotFilter filter, SnapshotPrinter printer, PrintStream out) {
        if (!filter.matches(s)) return true;
        if (jsonl) {
            byte[] json = AvroJson.write(s);
            out.write(json, 0, json.length);
            out.write('\n');
        } else {
            printer.print(ContextSnapshotReader.toSnapshot(s));
        }
        out.flush();
        shown++;
        return max == null || shown < max;
    }
}
