package dev.baton.replay.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * A real Kafka broker (one combined KRaft broker + controller) running inside this JVM, for
 * {@code baton demo}, {@code baton backfill} without {@code --bootstrap-servers}, and the
 * integration tests.
 *
 * <p>It is Kafka's own {@link KafkaClusterTestKit}, configured for a single node (or, for fault tests, a few
 * brokers: {@link #startCluster}): replication factor
 * 1 for the offsets, transaction and share-state topics (so exactly-once works), a pinned
 * production metadata version (no unstable features), no automatic topic creation. The kit's
 * threads are not daemons: always {@link #close()} it (try-with-resources). Its data lives in a
 * temporary directory that is deleted on close, and by a shutdown hook if the JVM is stopped first.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private final KafkaClusterTestKit cluster;
    private final Path baseDirectory;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private EmbeddedKafka(KafkaClusterTestKit cluster, Path baseDirectory) {
        this.cluster = cluster;
        this.baseDirectory = baseDirectory;
        this.shutdownHook = new Thread(this::closeQuietly, "embedded-kafka-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts a single-node broker with the default settings and waits until it accepts clients. */
    public static EmbeddedKafka start() {
        return start(Map.of());
    }

    /**
     * Starts a single-node broker and waits until it accepts clients.
     *
     * @param brokerOverrides broker properties that replace the defaults (for example
     *     {@code log.retention.ms})
     */
    public static EmbeddedKafka start(Map<String, String> brokerOverrides) {
        return startCluster(1, brokerOverrides);
    }

    /**
     * Starts {@code brokers} brokers (one combined broker + controller when 1; else separate brokers with ids 0 to
     * {@code brokers - 1} and one controller) and waits until they accept clients. With several brokers the
     * offsets and transaction topics and new topics get replication factor {@code min(3, brokers)} and
     * {@code min.insync.replicas} {@code min(2, brokers)}, like a small production cluster; a broker can be stopped
     * and started again through {@link #cluster()}.
     */
    public static EmbeddedKafka startCluster(int brokers, Map<String, String> brokerOverrides) {
        if (brokers < 1) {
            throw new IllegalArgumentException("at least one broker, not " + brokers);
        }
        Path base;
        try {
            base = Files.createTempDirectory("baton-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the embedded broker", e);
        }
        KafkaClusterTestKit cluster = null;
        try {
            TestKitNodes nodes = new TestKitNodes.Builder()
                    .setCombined(brokers == 1)
                    .setNumBrokerNodes(brokers)
                    .setNumControllerNodes(1)
                    .setBaseDirectory(base)
                    // the newest metadata version that is production-ready, never an unstable one
                    .setBootstrapMetadataVersion(MetadataVersion.LATEST_PRODUCTION)
                    .build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes).setDeleteOnClose(true);
            defaultBrokerConfig(brokers).forEach(builder::setConfigProp);
            brokerOverrides.forEach(builder::setConfigProp);
            cluster = builder.build();
            quietBrokerLogs();
            formatSilently(cluster);
            cluster.startup();
            cluster.waitForReadyBrokers();
            return new EmbeddedKafka(cluster, base);
        } catch (Exception e) {
            if (cluster != null) {
                try {
                    cluster.close();
                } catch (Exception closing) {
                    e.addSuppressed(closing);
                }
            }
            deleteRecursively(base);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("the embedded Kafka broker did not start: " + e.getMessage(), e);
        }
    }

    /**
     * The kit's storage formatter prints its bootstrap metadata to {@code System.out}, which is where
     * {@code baton demo} and {@code baton backfill} write their results: swallow it.
     */
    private static void formatSilently(KafkaClusterTestKit cluster) throws Exception {
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        try {
            cluster.format();
        } finally {
            System.setOut(stdout);
        }
    }

    /**
     * An in-process broker is a means, not the subject: its controller, raft and broker-side client
     * logs (activation notices, disconnects at shutdown) would drown Baton's own output.
     */
    private static void quietBrokerLogs() {
        Map<String, Level> levels = new HashMap<>();
        for (String logger : List.of("kafka", "org.apache.kafka.controller", "org.apache.kafka.raft",
                "org.apache.kafka.server", "org.apache.kafka.storage", "org.apache.kafka.metadata",
                "org.apache.kafka.image", "org.apache.kafka.coordinator", "org.apache.kafka.common.test",
                "org.apache.kafka.clients.NetworkClient")) {
            levels.put(logger, Level.ERROR);
        }
        Configurator.setLevel(levels);
    }

    /** Broker settings that make one node behave like a small, correct cluster. */
    static Map<String, String> defaultBrokerConfig() {
        return defaultBrokerConfig(1);
    }

    /** Broker settings for {@code brokers} brokers: replication factor up to 3, min ISR up to 2. */
    static Map<String, String> defaultBrokerConfig(int brokers) {
        String replicas = Integer.toString(Math.min(3, brokers));
        String minIsr = Integer.toString(Math.min(2, brokers));
        return Map.ofEntries(
                // one node: every internal topic has a single replica; several: up to 3, min ISR up to 2
                Map.entry("offsets.topic.replication.factor", replicas),
                Map.entry("offsets.topic.num.partitions", "1"),
                Map.entry("transaction.state.log.replication.factor", replicas),
                Map.entry("transaction.state.log.min.isr", minIsr),
                Map.entry("transaction.state.log.num.partitions", "1"),
                Map.entry("share.coordinator.state.topic.replication.factor", replicas),
                Map.entry("share.coordinator.state.topic.min.isr", minIsr),
                Map.entry("default.replication.factor", replicas),
                Map.entry("min.insync.replicas", minIsr),
                // no preview features: behave like a production broker
                Map.entry("unstable.feature.versions.enable", "false"),
                Map.entry("unstable.api.versions.enable", "false"),
                // topics are created on purpose (like a managed cluster), never by a typo
                Map.entry("auto.create.topics.enable", "false"),
                // a single consumer group member should not wait 3 s for others to join
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                // the log cleaner's default 128 MiB buffer is far more than a demo needs
                Map.entry("log.cleaner.dedupe.buffer.size", "16777216"));
    }

    /** {@code host:port} of the broker's client listener. */
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** A new admin client for this broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    /**
     * Creates topics with the given number of partitions (the broker's default replication factor: 1 for one
     * broker) and waits for them;
     * topics that already exist are left as they are.
     */
    public void createTopics(int partitions, String... names) {
        createTopics(partitions, Map.of(), names);
    }

    /** Like {@link #createTopics(int, String...)}, with topic configs (for example {@code cleanup.policy}). */
    public void createTopics(int partitions, Map<String, String> configs, String... names) {
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, Optional.of(partitions), Optional.empty()).configs(configs));
        }
        try (Admin admin = admin()) {
            admin.createTopics(topics).values().forEach((name, future) -> {
                try {
                    future.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + name + ": " + e.getCause(), e.getCause());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while creating topic " + name, e);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new IllegalStateException("topic " + name + " was not created within 30 s", e);
                }
            });
        }
    }

    /** Bytes the broker's data (logs, metadata) takes on disk now. */
    public long diskUsageBytes() {
        try (var files = Files.walk(baseDirectory)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException gone) {
                    return 0; // deleted while walking (a segment removed by retention)
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    /** The kit itself, for tests that bounce brokers or inspect the controller. */
    public KafkaClusterTestKit cluster() {
        return cluster;
    }

    /** Stops the broker and deletes its data. Idempotent. */
    @Override
    public void close() {
        closeQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // already in shutdown: the hook is running or has run
        }
    }

    private void closeQuietly() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            cluster.close();
        } catch (Exception e) {
            // closing is best effort: the data directory is removed below either way
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        } finally {
            deleteRecursively(baseDirectory);
        }
    }

    /** Deletes a directory tree, best effort (a temporary directory left behind is not worth failing for). */
    public static void deleteRecursively(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // leaving a temporary directory behind is not worth failing a run for
        }
    }
}
