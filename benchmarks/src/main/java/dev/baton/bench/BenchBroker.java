package dev.baton.bench;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A single-node KRaft broker in this JVM ({@link KafkaClusterTestKit}) set up like Baton's embedded broker (see
 * NOTES.md): replication factor 1 for offsets and transaction state so exactly-once works, a pinned production
 * metadata version, no automatic topic creation. The harness uses its own copy because
 * {@code dev.baton.embedded.EmbeddedKafka} is not in main yet; switch to it when it is.
 */
final class BenchBroker implements AutoCloseable {
    private final KafkaClusterTestKit cluster;

    private BenchBroker(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    static BenchBroker start() throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .setBootstrapMetadataVersion(MetadataVersion.LATEST_PRODUCTION)
                .build();
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes).setDeleteOnClose(true);
        Map.ofEntries(
                Map.entry("offsets.topic.replication.factor", "1"),
                Map.entry("offsets.topic.num.partitions", "1"),
                Map.entry("transaction.state.log.replication.factor", "1"),
                Map.entry("transaction.state.log.min.isr", "1"),
                Map.entry("transaction.state.log.num.partitions", "1"),
                Map.entry("default.replication.factor", "1"),
                Map.entry("min.insync.replicas", "1"),
                Map.entry("unstable.feature.versions.enable", "false"),
                Map.entry("unstable.api.versions.enable", "false"),
                Map.entry("auto.create.topics.enable", "false"),
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                Map.entry("message.max.bytes", Integer.toString(8 * 1024 * 1024)),
                Map.entry("log.cleaner.dedupe.buffer.size", "16777216"))
                .forEach(builder::setConfigProp);
        KafkaClusterTestKit cluster = builder.build();
        try {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            return new BenchBroker(cluster);
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
    }

    String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    void createTopics(int partitions, String... names) throws Exception {
        createTopics(partitions, Map.of(), names);
    }

    void createTopics(int partitions, Map<String, String> configs, String... names) throws Exception {
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, Optional.of(partitions), Optional.of((short) 1)).configs(configs));
        }
        try (Admin admin = admin()) {
            for (var f : admin.createTopics(topics).values().values()) {
                try {
                    f.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) throw e;
                }
            }
        }
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
