package dev.baton.service.ops;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.streams.StreamsConfig;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.config.BatonConfig;
import dev.baton.service.command.ClusterOptions;
import dev.baton.service.command.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code baton reset}: reprocess from scratch. The steps of Kafka's own application reset tool
 * ({@code kafka-streams-application-reset.sh}), done with Kafka's AdminClient so that the container image can run it
 * without the broker's jars that the tool needs: refuse while the application's consumer group has members; move the
 * group's committed offsets on the session-events topic to the earliest offsets; delete the application's internal
 * topics (changelogs, repartition topics); then delete this machine's local state directory
 * ({@code state.dir/application.id}). Output topics are never touched.
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
            "Refuses while any instance of the application id is running (its consumer group has members). "
                    + "Otherwise: the group's committed offsets on the session-events topic go back to the earliest, "
                    + "the application's internal topics (changelogs, repartition topics) are deleted, and the local "
                    + "state of this machine (state.dir/APPLICATION_ID) is deleted; on Kubernetes delete the pods' "
                    + "state volumes instead (see docs/operations.md). The output topics are not touched. The "
                    + "tenant-policies topic is always read from its beginning. Needs only Kafka (no schema registry).",
            "",
            "Exit codes: 0 reset (or, with --dry-run, shown); 1 refused because an instance is running, or Kafka "
                    + "refused or did not answer (one line on stderr); 2 wrong command line or configuration."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Examples:",
            "  baton reset --bootstrap-servers kafka:9092 --config baton.properties --dry-run",
            "  baton reset --bootstrap-servers kafka:9092 --config baton.properties"
        })
public final class ResetCommand implements Callable<Integer> {

    /** Kafka Streams' internal topic names (as Kafka's reset tool recognises them), after "APPLICATION_ID-". */
    private static final Pattern INTERNAL_TOPIC = Pattern.compile(".+-(changelog|repartition"
            + "|subscription-registration-topic|subscription-response-topic)"
            + "|.+-KTABLE-FK-JOIN-SUBSCRIPTION-(REGISTRATION|RESPONSE)-\\d+-topic");

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--dry-run", description = "Show what would be reset and deleted; change nothing.")
    boolean dryRun;

    @Option(names = "--keep-local-state", description = "Do not delete the local state directory.")
    boolean keepLocalState;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "15",
            description = "How long to wait for Kafka before giving up with an error. Default: ${DEFAULT-VALUE}.")
    int timeoutSeconds;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (timeoutSeconds < 1) {
            throw new AppFailure(ExitCodes.USAGE, "--timeout must be at least 1");
        }
        BatonConfig config = OpsConfig.load(cluster);
        String app = config.applicationId();
        String input = config.sessionEventsTopic();
        PrintWriter out = spec.commandLine().getOut();
        String would = dryRun ? "would be " : "";
        try (KafkaAdminCalls kafka = new KafkaAdminCalls(config, Duration.ofSeconds(timeoutSeconds))) {
            // a group that never existed (the application never ran) has no members: nothing is running
            ConsumerGroupDescription group = kafka.getIfExists(kafka.admin().describeConsumerGroups(List.of(app)).all(),
                    "describing consumer group " + app, GroupIdNotFoundException.class).map(g -> g.get(app)).orElse(null);
            if (group != null && !group.members().isEmpty()) {
                String clients = group.members().stream().map(MemberDescription::clientId).distinct().sorted()
                        .collect(Collectors.joining(", "));
                throw new AppFailure(ExitCodes.FAILED, "refused: " + app + " is still running (" + group.members().size()
                        + " consumer(s) in its group: " + clients + "); stop every instance, then run reset again");
            }
            Set<String> topics = kafka.get(kafka.admin().listTopics().names(), "listing topics");
            List<String> internal = topics.stream()
                    .filter(t -> t.startsWith(app + "-") && INTERNAL_TOPIC.matcher(t.substring(app.length() + 1)).matches())
                    .sorted().toList();

            if (!topics.contains(input)) {
                out.printf("Offsets of %s on %s: the topic does not exist, nothing to reset%n", app, input);
            } else {
                TopicDescription d = kafka.get(kafka.admin().describeTopics(List.of(input)).allTopicNames(),
                        "describing " + input).get(input);
                Map<TopicPartition, OffsetSpec> earliest = d.partitions().stream().collect(Collectors.toMap(
                        p -> new TopicPartition(input, p.partition()), p -> OffsetSpec.earliest()));
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets =
                        kafka.get(kafka.admin().listOffsets(earliest).all(), "reading the earliest offsets of " + input);
                if (!dryRun) {
                    Map<TopicPartition, OffsetAndMetadata> reset = offsets.entrySet().stream().collect(Collectors.toMap(
                            Map.Entry::getKey, e -> new OffsetAndMetadata(e.getValue().offset())));
                    // refused by the broker when an instance joined since the check above: still one line
                    kafka.get(kafka.admin().alterConsumerGroupOffsets(app, reset).all(),
                            "moving the offsets of " + app + " (is an instance running again?)");
                }
                out.printf("Offsets of %s on %s (%d partitions): %sset to the earliest%n", app, input, offsets.size(),
                        would);
            }
            if (internal.isEmpty()) {
                out.printf("Internal topics of %s: none%n", app);
            } else {
                if (!dryRun) {
                    kafka.get(kafka.admin().deleteTopics(internal).all(), "deleting the internal topics of " + app);
                }
                out.printf("Internal topics of %s: %sdeleted: %s%n", app, would, String.join(", ", internal));
            }
        }
        Path local = localState(config);
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

    private static Path localState(BatonConfig config) {
        String stateDir = config.get(StreamsConfig.STATE_DIR_CONFIG);
        if (stateDir == null || stateDir.isBlank()) {
            // Kafka Streams' own default
            stateDir = Paths.get(System.getProperty("java.io.tmpdir"), "kafka-streams").toString();
        }
        return Paths.get(stateDir, config.applicationId());
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException | UncheckedIOException e) {
            throw new AppFailure(ExitCodes.FAILED, "cannot delete the local state " + dir + ": " + e.getMessage());
        }
    }
}
