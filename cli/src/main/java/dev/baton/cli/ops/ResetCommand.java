package dev.baton.cli.ops;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.tools.StreamsResetter;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.service.command.ConnectionOptions;
import dev.baton.service.command.VersionProvider;
import dev.baton.config.BatonConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code baton reset}: reprocess from scratch. Kafka's own {@link StreamsResetter} (from
 * kafka-tools, what {@code kafka-streams-application-reset.sh} runs) moves the application's committed
 * offsets on the session-events topic to the earliest offset and deletes its internal topics
 * (changelogs); then this instance's local state directory ({@code state.dir/application.id}) is
 * deleted. Every instance must be stopped first: StreamsResetter refuses while the group has members.
 */
@Command(
        name = "reset",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Reset Baton to reprocess its input from the beginning (stop every instance first).",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Runs Kafka's StreamsResetter for the application id: the committed offsets of the "
                    + "session-events topic go back to the earliest, the internal changelog topics are deleted. "
                    + "Then deletes the local state of this machine (state.dir/APPLICATION_ID); on Kubernetes "
                    + "delete the pods' state volumes instead (see docs/operations.md). The output topics are "
                    + "not touched. The tenant-policies topic is always read from its beginning."
        },
        optionListHeading = "%nOptions:%n")
public final class ResetCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--dry-run", description = "Show what would be reset and deleted; change nothing.")
    boolean dryRun;

    @Option(names = "--keep-local-state", description = "Do not delete the local state directory.")
    boolean keepLocalState;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        BatonConfig config = OpsConfig.load(connection);
        PrintWriter out = spec.commandLine().getOut();
        List<String> args = new ArrayList<>(List.of(
                "--bootstrap-server", config.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG),
                "--application-id", config.applicationId(),
                "--input-topics", config.sessionEventsTopic(),
                "--to-earliest"));
        if (dryRun) {
            args.add("--dry-run");
        }
        Properties clientConfig = OpsConfig.adminProperties(config);
        clientConfig.remove("bootstrap.servers");
        clientConfig.remove("client.id");
        out.println((dryRun ? "Would reset" : "Resetting") + " application " + config.applicationId() + " (Kafka's "
                + "StreamsResetter " + String.join(" ", args) + ")");
        out.flush();
        int code = new StreamsResetter().execute(args.toArray(String[]::new), clientConfig);
        if (code != 0) {
            throw new AppFailure(ExitCodes.FAILED, "StreamsResetter failed (exit " + code + "); is every instance of "
                    + config.applicationId() + " stopped? (see its message above)");
        }
        String stateDir = config.get(StreamsConfig.STATE_DIR_CONFIG);
        if (stateDir == null || stateDir.isBlank()) {
            // Kafka Streams' own default
            stateDir = Paths.get(System.getProperty("java.io.tmpdir"), "kafka-streams").toString();
        }
        Path local = Paths.get(stateDir, config.applicationId());
        if (keepLocalState) {
            out.println("Local state " + local + ": kept (--keep-local-state)");
        } else if (!Files.exists(local)) {
            out.println("Local state " + local + ": none");
        } else if (dryRun) {
            out.println("Local state " + local + ": would be deleted");
        } else {
            deleteTree(local);
            out.println("Local state " + local + ": deleted");
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
