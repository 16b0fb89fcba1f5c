package dev.baton.cli.ops;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;

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
 * {@code baton topics}: creates Baton's four topics ({@link TopicPlan}) with Kafka's AdminClient, or
 * checks them. Idempotent: a topic that exists is compared, never recreated; a differing topic config
 * is set (unless {@code --check}); a partition count or replication factor that differs is reported
 * and left alone (changing partitions moves sessions away from their state: see docs/operations.md).
 */
@Command(
        name = "topics",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Create or check Baton's topics (session events, snapshots, dead letters, tenant policies).",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Creates the topics that do not exist and sets the topic configs Baton relies on "
                    + "(cleanup.policy, min.insync.replicas, max.message.bytes) where they differ. Running it "
                    + "again changes nothing. Exit code 0 when every topic is as planned afterwards (or would be, "
                    + "with --dry-run), 1 when a topic differs in a way it does not change (partitions, replicas) "
                    + "or, with --check, in any way."
        },
        optionListHeading = "%nOptions:%n")
public final class TopicsCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "" + TopicPlan.DEFAULT_PARTITIONS,
            description = "Partitions of the session-events and snapshots topics (the parallelism). Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Option(names = "--dead-letter-partitions", paramLabel = "N", defaultValue = "" + TopicPlan.DEFAULT_DEAD_LETTER_PARTITIONS,
            description = "Partitions of the dead-letter topic. Default: ${DEFAULT-VALUE}.")
    int deadLetterPartitions;

    @Option(names = "--replication-factor", paramLabel = "N", defaultValue = "" + TopicPlan.DEFAULT_REPLICATION_FACTOR,
            description = "Replicas of every topic. Default: ${DEFAULT-VALUE} (1 for a single broker).")
    short replicationFactor;

    @Option(names = "--check", description = "Change nothing; exit 1 when any topic is missing or differs.")
    boolean check;

    @Option(names = "--dry-run", description = "Print what would be created or changed; change nothing.")
    boolean dryRun;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        BatonConfig config = OpsConfig.load(connection);
        List<TopicPlan.Topic> plan = TopicPlan.of(config, partitions, deadLetterPartitions, replicationFactor);
        PrintWriter out = spec.commandLine().getOut();
        boolean change = !check && !dryRun;
        String would = change ? "" : "would be ";
        try (Admin admin = Admin.create(OpsConfig.adminProperties(config))) {
            Set<String> existing = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            List<NewTopic> toCreate = new ArrayList<>();
            Map<String, TopicPlan.Topic> toCompare = new HashMap<>();
            for (TopicPlan.Topic t : plan) {
                if (existing.contains(t.name())) {
                    toCompare.put(t.name(), t);
                } else {
                    toCreate.add(new NewTopic(t.name(), t.partitions(), t.replicationFactor()).configs(t.configs()));
                }
            }
            int problems = 0;
            for (NewTopic t : toCreate) {
                out.printf("%s: missing, %screated with %d partitions, replication factor %d, %s%n", t.name(), would,
                        t.numPartitions(), t.replicationFactor(), t.configs());
            }
            if (change && !toCreate.isEmpty()) {
                admin.createTopics(toCreate).all().get(60, TimeUnit.SECONDS);
            } else if (check) {
                problems += toCreate.size();
            }
            if (!toCompare.isEmpty()) {
                problems += compare(admin, toCompare, change, check, would, out);
            }
            out.flush();
            if (problems > 0) {
                throw new AppFailure(ExitCodes.FAILED, problems + " topic setting(s) differ from the plan (see above)");
            }
            return ExitCodes.OK;
        } catch (ExecutionException | TimeoutException e) {
            throw new AppFailure(ExitCodes.FAILED, "Kafka: " + (e.getCause() == null ? e : e.getCause()).getMessage(), e);
        }
    }

    /** Prints each topic's differences, sets differing configs when {@code change}; returns the problems. */
    private static int compare(Admin admin, Map<String, TopicPlan.Topic> topics, boolean change, boolean check,
            String would, PrintWriter out) throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, TopicDescription> descriptions = admin.describeTopics(topics.keySet()).allTopicNames()
                .get(60, TimeUnit.SECONDS);
        List<ConfigResource> resources = topics.keySet().stream()
                .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(60, TimeUnit.SECONDS);
        Map<ConfigResource, Collection<AlterConfigOp>> alter = new HashMap<>();
        int unfixable = 0;
        for (TopicPlan.Topic t : topics.values().stream().sorted(java.util.Comparator.comparing(TopicPlan.Topic::name)).toList()) {
            TopicDescription d = descriptions.get(t.name());
            List<String> notes = new ArrayList<>();
            int partitions = d.partitions().size();
            int replicas = d.partitions().get(0).replicas().size();
            if (partitions != t.partitions()) {
                notes.add("has " + partitions + " partitions, planned " + t.partitions() + " (not changed: see docs/operations.md, Resetting)");
                unfixable++;
            }
            if (replicas != t.replicationFactor()) {
                notes.add("has replication factor " + replicas + ", planned " + t.replicationFactor()
                        + " (not changed: use kafka-reassign-partitions.sh)");
                unfixable++;
            }
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, t.name());
            Config actual = configs.get(resource);
            for (Map.Entry<String, String> c : t.configs().entrySet()) {
                ConfigEntry entry = actual.get(c.getKey());
                String value = entry == null ? null : entry.value();
                if (!c.getValue().equals(value)) {
                    notes.add(c.getKey() + "=" + value + ", " + would + "set to " + c.getValue());
                    alter.computeIfAbsent(resource, r -> new ArrayList<>())
                            .add(new AlterConfigOp(new ConfigEntry(c.getKey(), c.getValue()), AlterConfigOp.OpType.SET));
                }
            }
            out.printf("%s: %s%n", t.name(), notes.isEmpty() ? "ok (" + partitions + " partitions, replication factor "
                    + replicas + ", " + t.configs() + ")" : String.join("; ", notes));
        }
        if (change && !alter.isEmpty()) {
            admin.incrementalAlterConfigs(alter).all().get(60, TimeUnit.SECONDS);
        }
        int configDifferences = alter.values().stream().mapToInt(Collection::size).sum();
        return unfixable + (check ? configDifferences : 0);
    }
}
