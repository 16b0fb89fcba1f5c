package dev.baton.service.ops;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.baton.config.BatonConfig;

/**
 * Baton's four topics as {@code baton topics} creates them and deploy/components/strimzi
 * declares them (a test keeps the two equal): names from the configuration, partitions and
 * replicas from the command line (replicas by default what the cluster can hold, at most 3), and the topic configs
 * below.
 */
public final class TopicPlan {

    /** Largest record the topics take (8 MiB): a snapshot up to Baton's output bound fits. */
    public static final int MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
    public static final int DEFAULT_PARTITIONS = 24;
    public static final int DEFAULT_DEAD_LETTER_PARTITIONS = 6;
    /** Replicas of every topic on a cluster of 3 brokers or more (deploy/ declares this many). */
    public static final short DEFAULT_REPLICATION_FACTOR = 3;

    /** The default replication factor on a cluster of {@code brokers}: 3, or fewer when the cluster has fewer. */
    public static short defaultReplicationFactor(int brokers) {
        return (short) Math.max(1, Math.min(DEFAULT_REPLICATION_FACTOR, brokers));
    }

    /** One topic: name, partitions, replication factor and the topic configs Baton relies on. */
    public record Topic(String name, int partitions, short replicationFactor, Map<String, String> configs) {
    }

    private TopicPlan() {
    }

    /**
     * The topics for {@code config}: session events and snapshots with {@code partitions} (the
     * parallelism), dead letters with {@code deadLetterPartitions}, tenant policies with one partition,
     * compacted (read whole as a global table), when configured; hand-off receipts and outcomes with
     * {@code partitions}, when receipts are on.
     */
    public static List<Topic> of(BatonConfig config, int partitions, int deadLetterPartitions, short replicationFactor) {
        List<Topic> topics = new ArrayList<>();
        topics.add(new Topic(config.sessionEventsTopic(), partitions, replicationFactor, configs("delete", replicationFactor)));
        topics.add(new Topic(config.contextSnapshotsTopic(), partitions, replicationFactor, configs("delete", replicationFactor)));
        topics.add(new Topic(config.deadLettersTopic(), deadLetterPartitions, replicationFactor,
                configs("delete", replicationFactor)));
        config.tenantPoliciesTopic().ifPresent(t ->
                topics.add(new Topic(t, 1, replicationFactor, configs("compact", replicationFactor))));
        // receipts on: receipts partitioned like the session events (the join runs in the session's task), outcomes
        config.handoffReceiptsTopic().ifPresent(t -> {
            topics.add(new Topic(t, partitions, replicationFactor, configs("delete", replicationFactor)));
            topics.add(new Topic(config.handoffOutcomesTopic(), partitions, replicationFactor,
                    configs("delete", replicationFactor)));
        });
        return topics;
    }

    private static Map<String, String> configs(String cleanupPolicy, short replicationFactor) {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("cleanup.policy", cleanupPolicy);
        // exactly-once commits survive one broker down; a single broker can only have 1
        configs.put("min.insync.replicas", Integer.toString(Math.max(1, Math.min(2, replicationFactor - 1))));
        configs.put("max.message.bytes", Integer.toString(MAX_MESSAGE_BYTES));
        return configs;
    }
}
