package dev.baton.service.ops;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;

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
 * {@code baton topics}: creates Baton's four topics ({@link TopicPlan}) with Kafka's AdminClient, or checks them.
 * Idempotent: a topic that exists is compared, never recreated; a differing topic config is set (unless
 * {@code --check} or {@code --dry-run}); a partition count or replication factor that differs is reported and left
 * alone (changing partitions moves sessions away from their state: see docs/operations.md). Missing topics are first
 * validated by the brokers (Kafka's validate-only create), so a request that cannot succeed creates nothing, and a
 * topic is reported created only once Kafka says it is.
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
                    + "again changes nothing. The brokers check the missing topics first: when any of them cannot "
                    + "be created (too few brokers for the replication factor, a broker limit, an ACL), nothing is "
                    + "created. Needs only Kafka (no schema registry); the connection and security settings come "
                    + "from --config and BATON_* variables as for `run`.",
            "",
            "Exit codes: 0 every topic is as planned afterwards (or would be, with --dry-run; is, with --check); "
                    + "1 drift (a topic missing or differing: partitions, replication factor, configs) with --check, "
                    + "a difference this command does not change (partitions, replication factor), or Kafka "
                    + "refused or did not answer (one line on stderr); 2 wrong command line or configuration."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Examples:",
            "  baton topics --bootstrap-servers kafka:9092 --dry-run",
            "  baton topics --bootstrap-servers kafka:9092 --config baton.properties",
            "  baton topics --bootstrap-servers kafka:9092 --config baton.properties --check"
        })
public final class TopicsCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "" + TopicPlan.DEFAULT_PARTITIONS,
            description = "Partitions of the session-events and snapshots topics (the parallelism). Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Option(names = "--dead-letter-partitions", paramLabel = "N", defaultValue = "" + TopicPlan.DEFAULT_DEAD_LETTER_PARTITIONS,
            description = "Partitions of the dead-letter topic. Default: ${DEFAULT-VALUE}.")
    int deadLetterPartitions;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Replicas of every topic. Default: what the cluster can hold, at most 3 (3 on a cluster "
                    + "of 3 or more brokers, else one per broker).")
    Short replicationFactor;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "15",
            description = "How long to wait for Kafka before giving up with an error. Default: ${DEFAULT-VALUE}.")
    int timeoutSeconds;

    @Option(names = "--check", description = "Change nothing; exit 1 when any topic is missing or differs (drift).")
    boolean check;

    @Option(names = "--dry-run", description = "Print what would be created or changed; change nothing.")
    boolean dryRun;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (partitions < 1 || deadLetterPartitions < 1 || (replicationFactor != null && replicationFactor < 1)
                || timeoutSeconds < 1) {
            throw new AppFailure(ExitCodes.USAGE,
                    "--partitions, --dead-letter-partitions, --replication-factor and --timeout must be at least 1");
        }
        BatonConfig config = OpsConfig.load(cluster);
        PrintWriter out = spec.commandLine().getOut();
        boolean change = !check && !dryRun;
        try (KafkaAdminCalls kafka = new KafkaAdminCalls(config, Duration.ofSeconds(timeoutSeconds))) {
            int brokers = kafka.get(kafka.admin().describeCluster().nodes(), "describing the cluster").size();
            short replicas = replicationFactor != null ? replicationFactor : TopicPlan.defaultReplicationFactor(brokers);
            List<TopicPlan.Topic> plan = TopicPlan.of(config, partitions, deadLetterPartitions, replicas);
            Set<String> existing = kafka.get(kafka.admin().listTopics().names(), "listing topics");
            List<TopicPlan.Topic> missing = plan.stream().filter(t -> !existing.contains(t.name())).toList();
            Map<String, TopicPlan.Topic> present = new LinkedHashMap<>();
            plan.stream().filter(t -> existing.contains(t.name())).forEach(t -> present.put(t.name(), t));

            int problems = 0;
            if (!missing.isEmpty()) {
                problems += create(kafka, missing, brokers, change, check, out);
            }
            if (!present.isEmpty()) {
                problems += compare(kafka, present, change, check, out);
            }
            out.flush();
            if (problems > 0) {
                throw new AppFailure(ExitCodes.FAILED, problems + " topic setting(s) differ from the plan"
                        + (check ? " (drift, see above)" : " (see above)"));
            }
            return ExitCodes.OK;
        }
    }

    /**
     * Missing topics: the brokers validate them all first (nothing is created when one would fail); then they are
     * created, each reported once Kafka confirms it. Returns the problems (the missing topics, with --check).
     */
    private static int create(KafkaAdminCalls kafka, List<TopicPlan.Topic> missing, int brokers, boolean change,
            boolean check, PrintWriter out) {
        List<NewTopic> topics = missing.stream()
                .map(t -> new NewTopic(t.name(), t.partitions(), t.replicationFactor()).configs(t.configs())).toList();
        if (check) {
            topics.forEach(t -> out.printf("%s: missing%n", t.name()));
            return topics.size();
        }
        short replicas = missing.get(0).replicationFactor();
        if (replicas > brokers) {
            // Kafka would say "Unable to replicate the partition N time(s)": say what to change
            throw new AppFailure(ExitCodes.FAILED, "replication factor " + replicas + " needs at least " + replicas
                    + " brokers; the cluster has " + brokers + ": give --replication-factor " + brokers
                    + " or less (nothing was created)");
        }
        List<String> refused = outcomes(kafka.admin().createTopics(topics, new CreateTopicsOptions().validateOnly(true)
                .timeoutMs((int) kafka.timeoutMillis())), kafka);
        if (!refused.isEmpty()) {
            refused.forEach(out::println);
            out.flush();
            throw new AppFailure(ExitCodes.FAILED, "Kafka would refuse " + refused.size() + " of the "
                    + topics.size() + " missing topic(s) (see above); nothing was created");
        }
        if (!change) {
            topics.forEach(t -> out.printf("%s: missing, would be created with %d partitions, replication factor %d, "
                    + "%s%n", t.name(), t.numPartitions(), t.replicationFactor(), t.configs()));
            return 0;
        }
        CreateTopicsResult created = kafka.admin().createTopics(topics,
                new CreateTopicsOptions().timeoutMs((int) kafka.timeoutMillis()));
        List<String> failed = new ArrayList<>();
        for (NewTopic t : topics) {
            try {
                kafka.get(created.values().get(t.name()), "creating " + t.name());
                out.printf("%s: missing, created with %d partitions, replication factor %d, %s%n", t.name(),
                        t.numPartitions(), t.replicationFactor(), t.configs());
            } catch (AppFailure e) {
                failed.add(e.getMessage());
                out.printf("%s: missing, NOT created: %s%n", t.name(), e.getMessage());
            }
        }
        if (!failed.isEmpty()) {
            out.flush();
            throw new AppFailure(ExitCodes.FAILED, failed.size() + " topic(s) could not be created (see above)");
        }
        return 0;
    }

    /** "TOPIC: would be refused: REASON" for each topic whose creation Kafka refuses. */
    private static List<String> outcomes(CreateTopicsResult result, KafkaAdminCalls kafka) {
        List<String> refused = new ArrayList<>();
        result.values().forEach((name, future) -> {
            try {
                future.get();
            } catch (ExecutionException e) {
                refused.add(name + ": missing, Kafka refuses to create it: "
                        + kafka.failure("creating " + name, e.getCause() == null ? e : e.getCause()).getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
            }
        });
        refused.sort(Comparator.naturalOrder());
        return refused;
    }

    /** Prints each topic's differences, sets differing configs when {@code change}; returns the problems. */
    private static int compare(KafkaAdminCalls kafka, Map<String, TopicPlan.Topic> topics, boolean change,
            boolean check, PrintWriter out) {
        String would = change ? "" : "would be ";
        Map<String, TopicDescription> descriptions = kafka.get(
                kafka.admin().describeTopics(topics.keySet()).allTopicNames(), "describing the topics");
        List<ConfigResource> resources = topics.keySet().stream()
                .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
        Map<ConfigResource, Config> configs = kafka.get(kafka.admin().describeConfigs(resources).all(),
                "reading the topic configs");
        Map<ConfigResource, Collection<AlterConfigOp>> alter = new HashMap<>();
        int unfixable = 0;
        for (TopicPlan.Topic t : topics.values().stream().sorted(Comparator.comparing(TopicPlan.Topic::name)).toList()) {
            TopicDescription d = descriptions.get(t.name());
            List<String> notes = new ArrayList<>();
            int partitions = d.partitions().size();
            int replicas = d.partitions().get(0).replicas().size();
            if (partitions != t.partitions()) {
                notes.add("has " + partitions + " partitions, planned " + t.partitions()
                        + " (not changed: see docs/operations.md, Resetting)");
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
            kafka.get(kafka.admin().incrementalAlterConfigs(alter).all(), "setting the topic configs");
        }
        int configDifferences = alter.values().stream().mapToInt(Collection::size).sum();
        return unfixable + (check ? configDifferences : 0);
    }
}
