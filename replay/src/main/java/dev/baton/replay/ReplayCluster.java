package dev.baton.replay;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.app.StreamsApp;
import dev.baton.config.BatonConfig;
import dev.baton.replay.embedded.EmbeddedKafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * What a replay runs on, from start to close: a broker (in-process, or the given cluster with private topics), the
 * run's topics, its state and spill directories, the topology running in this JVM with Kafka Streams, and the
 * producer of the input; the Kafka settings of every plain client. Closing stops the topology and deletes what the
 * run made (on a real cluster: its topics and consumer group).
 */
final class ReplayCluster implements AutoCloseable {
    /** How long the topology may take to reach RUNNING for the first time. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Replay.Settings settings;
    private final EmbeddedKafka embedded;
    private final String bootstrapServers;
    private final BatonConfig config;
    private final Map<String, Object> clientConfig;
    private final Path stateDir;
    private final Path workDir;
    private final boolean privateTopics;
    private final StreamsApp app;
    private final KafkaProducer<byte[], byte[]> producer;
    private long startDeadline;
    private boolean running;
    /** The first failure a send reported (sends complete on the producer's thread). */
    final AtomicReference<Exception> sendFailure = new AtomicReference<>();
    private final Thread cleanup;

    /**
     * Starts the broker (unless one is given, or {@code early} is starting it already), creates the topics and starts
     * the topology.
     */
    ReplayCluster(Replay.Settings settings, BrokerStart early) {
        this.settings = settings;
        EmbeddedKafka broker = null;
        Path state = null;
        Path work = null;
        StreamsApp streams = null;
        KafkaProducer<byte[], byte[]> prod = null;
        try {
            privateTopics = settings.bootstrapServers() != null;
            state = Files.createTempDirectory("baton-state-");
            work = Files.createTempDirectory("baton-replay-");
            if (settings.bootstrapServers() == null) {
                broker = (early != null ? early : BrokerStart.begin()).await();
                bootstrapServers = broker.bootstrapServers();
                PhaseClock.mark("broker");
            } else {
                bootstrapServers = settings.bootstrapServers();
            }
            config = buildConfig(settings, bootstrapServers, state);
            clientConfig = clientConfig(config);
            createTopics();
            PhaseClock.mark("topics");
            streams = new StreamsApp(config);
            streams.start();
            // not waiting for RUNNING: the input goes to the broker while the group forms (the first rebalance, the
            // stores opening); a start that never ends is caught by throwIfFailed
            startDeadline = System.nanoTime() + START_TIMEOUT.toNanos();
            PhaseClock.mark("topology-start");
            prod = new KafkaProducer<>(producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
            PhaseClock.mark("producer");
        } catch (RuntimeException | IOException e) {
            if (prod != null) {
                prod.close(Duration.ZERO);
            }
            if (streams != null) {
                streams.close(Duration.ofSeconds(10));
            }
            deleteRecursively(state);
            deleteRecursively(work);
            if (broker != null) {
                broker.close();
            }
            if (e instanceof AppFailure cli) {
                throw cli;
            }
            throw new AppFailure(ExitCodes.FAILED, "cannot start the pipeline: " + e.getMessage(), e);
        }
        this.embedded = broker;
        this.stateDir = state;
        this.workDir = work;
        this.app = streams;
        this.producer = prod;
        // stopped by a signal: the state and spill directories go too (the broker has its own hook)
        Path stateToDelete = state;
        Path workToDelete = work;
        this.cleanup = new Thread(() -> {
            deleteRecursively(stateToDelete);
            deleteRecursively(workToDelete);
        }, "replay-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    private static BatonConfig buildConfig(Replay.Settings settings, String bootstrapServers, Path stateDir) {
        BatonConfig.Builder builder = BatonConfig.builder();
        settings.baseConfig().forEach(builder::set);
        String prefix = topicPrefix(settings);
        builder.set(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers)
            .set(StreamsConfig.APPLICATION_ID_CONFIG, settings.runName())
            .set(BatonConfig.FORMAT, settings.format())
            .set(BatonConfig.SESSION_EVENTS_TOPIC, prefix + "baton.session-events")
            .set(BatonConfig.CONTEXT_SNAPSHOTS_TOPIC, prefix + "baton.context-snapshots")
            .set(BatonConfig.DEAD_LETTERS_TOPIC, prefix + "baton.dead-letters")
            // no tenant policies in a replay: the defaults (and baton.policy.* settings) apply
            .set(BatonConfig.TENANT_POLICIES_TOPIC, "")
            // the end of the input settles everything (control records), never the wall clock
            .set(BatonConfig.PUNCTUATE_WALL_CLOCK, "false")
            // private topics, one instance, a crash fails the run: at-least-once gives the same output, and a
            // committed offset then means every output of the records before it is readable (see the class doc)
            .set(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE)
            .set(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "500")
            // nothing ever restores a replay's state (its state directory is temporary, a crash fails the run): the
            // stores need no changelog, which saves the broker a second copy of every state write (disk and CPU)
            .set(BatonConfig.STATE_CHANGELOG, "false")
            // Kafka Streams buffers up to this many input records per partition: 1,000 large records would be tens
            // of MB of heap; the broker holds them just as well
            .set(StreamsConfig.BUFFERED_RECORDS_PER_PARTITION_CONFIG, "100")
            .set(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString())
            .set(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "0")
            .set(StreamsConfig.topicPrefix("segment.bytes"), Integer.toString(Replay.SEGMENT_BYTES))
            .set(StreamsConfig.PRODUCER_PREFIX + ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                Integer.toString(Replay.MAX_MESSAGE_BYTES));
        if (settings.receipts()) {
            builder.set(BatonConfig.HANDOFF_RECEIPTS_TOPIC, prefix + "baton.handoff-receipts")
                .set(BatonConfig.HANDOFF_OUTCOMES_TOPIC, prefix + "baton.handoff-outcomes");
        }
        if (settings.bootstrapServers() == null) {
            builder.set(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        }
        // one member in a private group: a slow heartbeat (a loaded machine, a long GC pause) must not throw the stream
        // thread out of the group and replay its uncommitted records (seen once: "the coordinator is not aware of
        // this member" during a 2.3 GB run under load 56); nothing is gained by detecting a failure fast here
        String sessionTimeout = StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        if (!settings.baseConfig().containsKey(sessionTimeout)
            && !settings.baseConfig().containsKey(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG)) {
            builder.set(sessionTimeout, "300000");
        }
        if (settings.registryUrl() != null) {
            builder.set(BatonConfig.SCHEMA_REGISTRY_URL, settings.registryUrl());
        }
        return builder.build();
    }

    private static String topicPrefix(Replay.Settings settings) {
        // on a real cluster, never touch the production topics: a private set per run
        return settings.bootstrapServers() == null ? "" : settings.runName() + ".";
    }

    /** The Kafka settings every plain client gets (security and the like), without Streams-only keys. */
    private static Map<String, Object> clientConfig(BatonConfig config) {
        Set<String> known = new java.util.HashSet<>(AdminClientConfig.configNames());
        known.addAll(ProducerConfig.configNames());
        known.addAll(ConsumerConfig.configNames());
        Map<String, Object> out = new HashMap<>();
        config.kafkaProperties().forEach((k, v) -> {
            if (known.contains(k)) {
                out.put(k, v);
            }
        });
        return out;
    }

    private Map<String, Object> only(Set<String> names) {
        Map<String, Object> out = new HashMap<>();
        clientConfig.forEach((k, v) -> {
            if (names.contains(k)) {
                out.put(k, v);
            }
        });
        out.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return out;
    }

    Admin admin() {
        return Admin.create(only(AdminClientConfig.configNames()));
    }

    private Map<String, Object> producerConfig() {
        Map<String, Object> props = only(ProducerConfig.configNames());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(128 * 1024));
        // the broker holds what the application has not read; the producer needs only a few batches in hand
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(8L * 1024 * 1024));
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(Replay.MAX_MESSAGE_BYTES));
        return props;
    }

    private void createTopics() {
        Optional<Short> replication = settings.bootstrapServers() == null ? Optional.of((short) 1) : Optional.empty();
        List<NewTopic> topics = new java.util.ArrayList<>(List.of(
            new NewTopic(config.sessionEventsTopic(), Optional.of(settings.partitions()), replication),
            new NewTopic(config.contextSnapshotsTopic(), Optional.of(settings.partitions()), replication),
            new NewTopic(config.deadLettersTopic(), Optional.of(settings.partitions()), replication)));
        config.handoffReceiptsTopic().ifPresent(receipts -> {
            // same partition count as the events: a session's receipts reach the task that holds the session
            topics.add(new NewTopic(receipts, Optional.of(settings.partitions()), replication));
            topics.add(new NewTopic(config.handoffOutcomesTopic(), Optional.of(settings.partitions()), replication));
        });
        Map<String, String> topicConfig = Map.of(
            "max.message.bytes", Integer.toString(Replay.MAX_MESSAGE_BYTES),
            "segment.bytes", Integer.toString(Replay.SEGMENT_BYTES));
        topics.forEach(t -> t.configs(topicConfig));
        try (Admin admin = admin()) {
            for (var entry : admin.createTopics(topics).values().entrySet()) {
                try {
                    entry.getValue().get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException) || privateTopics) {
                        throw new AppFailure(ExitCodes.FAILED, "cannot create topic " + entry.getKey() + ": "
                            + e.getCause().getMessage(), e.getCause());
                    }
                } catch (Exception e) {
                    throw new AppFailure(ExitCodes.FAILED, "cannot create topic " + entry.getKey() + ": " + e, e);
                }
            }
        }
    }

    BatonConfig config() {
        return config;
    }

    /** Fails when the topology failed, or has not reached RUNNING within {@link #START_TIMEOUT} of its start. */
    void throwIfFailed() {
        app.throwIfFailed();
        if (running) {
            return;
        }
        if (app.state() == KafkaStreams.State.RUNNING) {
            running = true;
            PhaseClock.mark("topology-running");
        } else if (System.nanoTime() > startDeadline) {
            throw new AppFailure(ExitCodes.FAILED, "Kafka Streams did not reach RUNNING within "
                + START_TIMEOUT.toSeconds() + " s (state " + app.state() + ")");
        }
    }

    StreamsApp app() {
        return app;
    }

    KafkaProducer<byte[], byte[]> producer() {
        return producer;
    }

    /** Where the run's reorder buffers and session keys spill. */
    Path workDir() {
        return workDir;
    }

    /** The in-process broker's data size, bytes, or -1 when the cluster is not in-process. */
    long brokerDiskUsage() {
        return embedded == null ? -1 : embedded.diskUsageBytes();
    }

    /** A consumer of the output topics (read_committed, no group: assigned by the caller). */
    KafkaConsumer<byte[], byte[]> outputConsumer() {
        Map<String, Object> props = only(ConsumerConfig.configNames());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // a fetch returns at least one whole record whatever these say: smaller fetches only bound the heap
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(1024 * 1024));
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(4 * 1024 * 1024));
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // a fetch sent while nothing was new waits up to this long on the broker; at the end of the input the replay
        // waits on that fetch for the last snapshots (the default 500 ms showed as a 0.5 s pause in some runs)
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void close() {
        try {
            producer.close(Duration.ofSeconds(10));
        } catch (RuntimeException ignored) {
            // closing is best effort
        }
        PhaseClock.mark("producer-close");
        app.close(Duration.ofSeconds(30));
        PhaseClock.mark("topology-close");
        if (privateTopics) {
            deletePrivateResources();
        }
        deleteRecursively(stateDir);
        deleteRecursively(workDir);
        if (embedded != null) {
            embedded.close();
            PhaseClock.mark("broker-close");
        }
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }

    /** On a real cluster: the run's topics, its internal topics and its consumer group. */
    private void deletePrivateResources() {
        try (Admin admin = admin()) {
            Collection<String> names = admin.listTopics().names().get(60, TimeUnit.SECONDS).stream()
                .filter(n -> n.startsWith(settings.runName() + ".") || n.startsWith(settings.runName() + "-"))
                .toList();
            admin.deleteTopics(names).all().get(60, TimeUnit.SECONDS);
            admin.deleteConsumerGroups(List.of(config.applicationId())).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("baton: could not delete the backfill's topics (prefix " + settings.runName()
                + "): " + e.getMessage());
        }
    }

    static void deleteRecursively(Path root) {
        EmbeddedKafka.deleteRecursively(root);
    }
}
