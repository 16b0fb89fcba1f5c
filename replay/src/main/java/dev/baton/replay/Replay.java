package dev.baton.replay;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.app.StreamsApp;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongConsumer;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.StreamsConfig;

import dev.baton.config.BatonConfig;
import dev.baton.engine.model.SessionKey;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.replay.embedded.EmbeddedKafka;
import dev.baton.deadletter.DeadLetterHeaders;

/**
 * The one replay job behind {@code baton demo} and {@code baton backfill}: a finite input through the real Baton
 * topology, its snapshots and dead letters handed back <em>as they are ready</em>, in input order.
 *
 * <ol>
 *   <li>{@link #open}: a broker (in-process, or the given cluster with private topics), the topics, and the topology
 *       running in this JVM with Kafka Streams;</li>
 *   <li>{@link #run}: sends the input records, each to the partition its key hashes to (so the offset of every
 *       record is known when it is sent), with header {@value #SOURCE_LINE_HEADER}; after the input, one settle
 *       control record per session ends every wait (no wall clock). Meanwhile it follows the application's committed
 *       offsets and reads the output topics, and hands each snapshot and dead letter to the {@link Sink} in the
 *       input order of the records they answer, through a bounded reorder buffer that spills to disk
 *       ({@link OrderedSpool}).</li>
 * </ol>
 *
 * <p>How a hand-off is known to be done: its snapshot arrives (matched by snapshot id to the earliest hand-off of
 * that id still open), its dead letter arrives (matched by input partition and offset), or the application has
 * committed past it with neither: a duplicate (a hand-off without {@code as_of_seq} is always answered while its own
 * record is processed), unless it has {@code as_of_seq}, then it may be waiting for turns and stays open until its
 * snapshot comes (at the latest after its session's settle record). The replay runs at-least-once on its private
 * topics: Kafka Streams flushes every output of a record before it commits the record's offset, so once a committed
 * offset is seen, reading the output topics to their end shows every output of the records before it (under
 * exactly-once the output's commit markers can trail the offsets' by a moment). A crash fails the whole run, so no
 * record is ever processed twice.
 *
 * <p>Memory is bounded whatever the input's size: at most {@link #MAX_IN_FLIGHT} records ({@link
 * #MAX_IN_FLIGHT_BYTES} bytes) are sent and not yet committed (the sender waits), the reorder buffers spill past
 * {@link #SPOOL_MEMORY_BYTES} each, the clients' buffers are small, and the session keys for the settle records are
 * kept on disk. What stays in memory beyond that are the hand-offs waiting for turns
 * past the end of what arrived (at most the waiting bound, 100 per session by default).
 */
final class Replay implements AutoCloseable {

    /** Large records are Baton's to judge (OVERSIZED), not the broker's: allow up to 16 MiB in transit. */
    static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

    /** The input line (or other position) of the record, decimal text: provenance for whoever reads the input. */
    static final String SOURCE_LINE_HEADER = dev.baton.processor.SessionProvenance.SOURCE_LINE_HEADER;

    /** Records sent and not yet committed by the application, at most. */
    static final int MAX_IN_FLIGHT = 100_000;

    /** Bytes of records sent and not yet committed, at most (what the broker holds of the input). */
    static final long MAX_IN_FLIGHT_BYTES = 256L * 1024 * 1024;

    /** Bytes each reorder buffer holds in memory before it spills to disk. */
    static final long SPOOL_MEMORY_BYTES = 16L * 1024 * 1024;

    /** Segment size of the run's topics: small enough that consumed records leave the disk soon. */
    static final int SEGMENT_BYTES = 64 * 1024 * 1024;

    /** A position for records that answer no input line (settle records). */
    static final long NO_POSITION = Long.MAX_VALUE;

    /**
     * @param bootstrapServers a cluster to use, or null for a broker inside this process
     * @param baseConfig       Kafka client settings for that cluster (security etc.); may be empty
     * @param format           value format on the topics: {@code avro} or {@code json}
     * @param registryUrl      schema registry URL for avro, else null
     * @param runName          names the application and, on a real cluster, prefixes the private topics
     * @param partitions       partitions of the input and output topics
     */
    record Settings(String bootstrapServers, Map<String, String> baseConfig, String format, String registryUrl,
                    String runName, int partitions) {
    }

    /** One item of the input: a record to send, or a line rejected before sending. */
    sealed interface Item permits Send, Reject {
        long position();
    }

    /**
     * A record to send.
     *
     * @param position   its input line (strictly increasing over the input)
     * @param key        the record key (null when the line names no session)
     * @param value      the record value
     * @param snapshotId for a hand-off, the snapshot id it asks for, else null
     * @param mayWait    for a hand-off with {@code as_of_seq}: it may wait for turns
     * @param sourceLine the input line sent as header {@value #SOURCE_LINE_HEADER}; negative: no header
     */
    record Send(long position, byte[] key, byte[] value, String snapshotId, boolean mayWait, long sourceLine)
        implements Item {
        /** A record whose position is its input line. */
        Send(long position, byte[] key, byte[] value, String snapshotId, boolean mayWait) {
            this(position, key, value, snapshotId, mayWait, position);
        }
    }

    /** A line dead-lettered by the replay itself (never sent: e.g. a line over the record limit). */
    record Reject(long position, ReportedDeadLetter deadLetter) implements Item {
    }

    /** The input, read one item at a time: the seam where other input formats plug in. */
    interface Source {
        /** The next item, or null at the end. */
        Item next() throws IOException;

        /**
         * Items to send for a session once every session is settled (after the end of the input), positions above
         * every earlier one; none by default.
         */
        default List<Item> afterSettle(String sessionKey) {
            return List.of();
        }
    }

    /** A dead letter as the replay reports it. {@code originalSize} is the size of the rejected value in bytes. */
    record ReportedDeadLetter(String code, String message, byte[] key, byte[] value, long originalSize) {
        byte[] encode() {
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                DataOutputStream out = new DataOutputStream(bytes);
                out.writeUTF(code == null ? "" : code);
                out.writeUTF(message == null ? "" : message);
                writeBytes(out, key);
                writeBytes(out, value);
                out.writeLong(originalSize);
                return bytes.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        static ReportedDeadLetter decode(byte[] encoded) {
            try {
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded));
                return new ReportedDeadLetter(in.readUTF(), in.readUTF(), readBytes(in), readBytes(in), in.readLong());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
            out.writeInt(b == null ? -1 : b.length);
            if (b != null) {
                out.write(b);
            }
        }

        private static byte[] readBytes(DataInputStream in) throws IOException {
            int n = in.readInt();
            if (n < 0) {
                return null;
            }
            byte[] b = new byte[n];
            in.readFully(b);
            return b;
        }
    }

    /** Where the results go, each kind in input order. */
    interface Sink {
        void snapshot(long position, byte[] value) throws IOException;

        void deadLetter(long position, ReportedDeadLetter deadLetter) throws IOException;
    }

    /**
     * What a run did.
     *
     * @param records            input records (sent, or rejected before sending; settle records not counted)
     * @param sessions           settle records sent (one per session; more when the key cache forgot a session)
     * @param snapshots          snapshots handed to the sink
     * @param deadLetters        dead letters handed to the sink, by code
     * @param noOutput           hand-offs that got neither (duplicates, when all is well)
     * @param unmatchedSnapshots snapshots that answered no open hand-off of the input
     * @param unplaced           dead letters that name no input record
     * @param counters           Baton's counters of the application
     * @param spilledBytes       bytes the reorder buffers wrote to disk
     * @param brokerDiskPeak     the in-process broker's largest data size seen, bytes (-1: not in-process)
     */
    record Result(long records, long sessions, long snapshots, Map<String, Long> deadLetters, long noOutput,
                  long unmatchedSnapshots, long unplaced, Map<String, Double> counters, long spilledBytes,
                  long brokerDiskPeak) {
        long deadLetterCount() {
            return deadLetters.values().stream().mapToLong(Long::longValue).sum();
        }

        /** True when every hand-off that got nothing is a duplicate the topology counted, and nothing is adrift. */
        boolean complete() {
            return unplaced == 0 && noOutput == Math.round(counters.getOrDefault("duplicate-handoffs-total", 0.0));
        }
    }

    private final Settings settings;
    private final EmbeddedKafka embedded;
    private final String bootstrapServers;
    private final BatonConfig config;
    private final Map<String, Object> clientConfig;
    private final Path stateDir;
    private final Path workDir;
    private final boolean privateTopics;
    private final StreamsApp app;
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicReference<Exception> sendFailure = new AtomicReference<>();
    private final Thread cleanup;

    private Replay(Settings settings) {
        this.settings = settings;
        EmbeddedKafka broker = null;
        Path state = null;
        Path work = null;
        StreamsApp streams = null;
        KafkaProducer<byte[], byte[]> prod = null;
        try {
            privateTopics = settings.bootstrapServers() != null;
            if (settings.bootstrapServers() == null) {
                broker = EmbeddedKafka.start(Map.of(
                    "message.max.bytes", Integer.toString(MAX_MESSAGE_BYTES),
                    "replica.fetch.max.bytes", Integer.toString(MAX_MESSAGE_BYTES),
                    // records the replay deleted (consumed input, read output) leave the disk within seconds
                    "log.retention.check.interval.ms", "5000",
                    "log.segment.delete.delay.ms", "1000"));
                bootstrapServers = broker.bootstrapServers();
            } else {
                bootstrapServers = settings.bootstrapServers();
            }
            state = Files.createTempDirectory("baton-state-");
            work = Files.createTempDirectory("baton-replay-");
            config = buildConfig(settings, bootstrapServers, state);
            clientConfig = clientConfig(config);
            createTopics();
            streams = new StreamsApp(config);
            streams.start();
            streams.awaitRunning(Duration.ofSeconds(90));
            prod = new KafkaProducer<>(producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
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

    /** Starts the broker (unless one is given), creates the topics and starts the topology. */
    static Replay open(Settings settings) {
        return new Replay(settings);
    }

    private static BatonConfig buildConfig(Settings settings, String bootstrapServers, Path stateDir) {
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
            .set(StreamsConfig.topicPrefix("segment.bytes"), Integer.toString(SEGMENT_BYTES))
            .set(StreamsConfig.PRODUCER_PREFIX + ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                Integer.toString(MAX_MESSAGE_BYTES));
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

    private static String topicPrefix(Settings settings) {
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

    private Admin admin() {
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
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_MESSAGE_BYTES));
        return props;
    }

    private void createTopics() {
        Optional<Short> replication = settings.bootstrapServers() == null ? Optional.of((short) 1) : Optional.empty();
        List<NewTopic> topics = List.of(
            new NewTopic(config.sessionEventsTopic(), Optional.of(settings.partitions()), replication),
            new NewTopic(config.contextSnapshotsTopic(), Optional.of(settings.partitions()), replication),
            new NewTopic(config.deadLettersTopic(), Optional.of(settings.partitions()), replication));
        Map<String, String> topicConfig = Map.of(
            "max.message.bytes", Integer.toString(MAX_MESSAGE_BYTES),
            "segment.bytes", Integer.toString(SEGMENT_BYTES));
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

    StreamsApp app() {
        return app;
    }

    /**
     * Replays the input and hands every result to the sink, in input order, as it is ready.
     *
     * @param source       the input items, positions strictly increasing
     * @param snapshotIdOf reads the snapshot id of an output value
     * @param sink         where the snapshots and dead letters go
     * @param timeout      how long to wait for the application once the input is sent
     * @param processed    told how many input records the application has committed, now and then
     */
    Result run(Source source, Function<byte[], String> snapshotIdOf, Sink sink, Duration timeout,
               LongConsumer processed) throws IOException {
        try (Run run = new Run(snapshotIdOf, sink, processed)) {
            return run.execute(source, timeout);
        }
    }

    /** One in-flight record: its position and, for a hand-off, what answers it. */
    private static final class Entry {
        final long position;
        final String snapshotId;
        final boolean mayWait;
        final int bytes;
        boolean resolved;

        Entry(long position, String snapshotId, boolean mayWait, int bytes) {
            this.position = position;
            this.snapshotId = snapshotId;
            this.mayWait = mayWait;
            this.bytes = bytes;
        }
    }

    /** The records sent to one partition and not yet committed, by offset. */
    private static final class Window {
        long baseOffset;
        // a ring of our own: ArrayDeque has no access by index, and a dead letter names its record by offset
        Entry[] ring = new Entry[1024];
        int head;
        int size;

        void add(Entry e) {
            if (size == ring.length) {
                Entry[] bigger = new Entry[ring.length * 2];
                for (int i = 0; i < size; i++) {
                    bigger[i] = ring[(head + i) % ring.length];
                }
                ring = bigger;
                head = 0;
            }
            ring[(head + size) % ring.length] = e;
            size++;
        }

        Entry at(long offset) {
            long i = offset - baseOffset;
            return i < 0 || i >= size ? null : ring[(int) ((head + i) % ring.length)];
        }

        Entry first() {
            return size == 0 ? null : ring[head];
        }

        Entry poll() {
            Entry e = ring[head];
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
            baseOffset++;
            return e;
        }
    }

    /** The state of one {@link #run}. */
    private final class Run implements AutoCloseable {
        private final Function<byte[], String> snapshotIdOf;
        private final Sink sink;
        private final LongConsumer processed;
        private final Window[] windows = new Window[settings.partitions()];
        private final Map<String, ArrayDeque<Entry>> open = new HashMap<>();
        private final TreeMap<Long, Entry> parked = new TreeMap<>();
        private final OrderedSpool snapshots = new OrderedSpool(workDir, "snapshots", SPOOL_MEMORY_BYTES);
        private final OrderedSpool deadLetters = new OrderedSpool(workDir, "dead-letters", SPOOL_MEMORY_BYTES);
        private final SessionKeys sessionKeys = new SessionKeys(workDir.resolve("sessions"));
        private final Admin admin = admin();
        private final KafkaConsumer<byte[], byte[]> consumer = outputConsumer();
        private final List<TopicPartition> inputPartitions = new ArrayList<>();
        private final Map<String, Long> codes = new TreeMap<>();
        private long inFlight;
        private long inFlightBytes;
        private long nextPosition = Long.MIN_VALUE;
        private long records;
        private long committedRecords;
        private long rejected;
        private long sessions;
        private long snapshotCount;
        private long noOutput;
        private long unmatched;
        private long unplaced;
        private long lastStepNanos;
        private long lastPurgeNanos;
        private long brokerDiskPeak = -1;
        private final Map<TopicPartition, Long> readPositions = new HashMap<>();

        Run(Function<byte[], String> snapshotIdOf, Sink sink, LongConsumer processed) {
            this.snapshotIdOf = snapshotIdOf;
            this.sink = sink;
            this.processed = processed;
            for (int p = 0; p < windows.length; p++) {
                windows[p] = new Window();
                inputPartitions.add(new TopicPartition(config.sessionEventsTopic(), p));
            }
            List<TopicPartition> outputs = new ArrayList<>();
            for (int p = 0; p < settings.partitions(); p++) {
                outputs.add(new TopicPartition(config.contextSnapshotsTopic(), p));
                outputs.add(new TopicPartition(config.deadLettersTopic(), p));
            }
            consumer.assign(outputs);
            consumer.seekToBeginning(outputs);
        }

        Result execute(Source source, Duration timeout) throws IOException {
            Item item;
            while ((item = source.next()) != null) {
                if (item.position() <= nextPosition) {
                    throw new IllegalArgumentException("input positions must increase: " + item.position()
                        + " after " + nextPosition);
                }
                nextPosition = item.position();
                if (item instanceof Reject r) {
                    deadLetters.add(r.position(), r.deadLetter().encode());
                    codes.merge(r.deadLetter().code(), 1L, Long::sum);
                    records++;
                    rejected++;
                } else {
                    Send s = (Send) item;
                    send(s);
                    records++;
                    String key = s.key() == null ? null : new String(s.key(), StandardCharsets.UTF_8);
                    if (isSessionKey(key)) {
                        sessionKeys.add(key);
                    }
                }
                maybeStep(false);
            }
            // the end of the input: settle every session now (gaps, waiting hand-offs) instead of waiting for the clock
            sessionKeys.finish();
            for (String key : sessionKeys) {
                settle(key);
                sessions++;
                maybeStep(false);
            }
            for (String key : sessionKeys) {
                for (Item after : source.afterSettle(key)) {
                    if (after.position() <= nextPosition || !(after instanceof Send s)) {
                        throw new IllegalArgumentException("an item after the settle must be a record to send, "
                            + "positioned after the input");
                    }
                    nextPosition = after.position();
                    send(s);
                    maybeStep(false);
                }
            }
            nextPosition = NO_POSITION;
            producer.flush();
            throwIfSendFailed();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (inFlight > 0) {
                if (System.nanoTime() > deadline) {
                    throw new AppFailure(ExitCodes.INCOMPLETE, "the topology had not processed the whole input after "
                        + timeout + " (" + committedRecords + " of " + records + " records); use --timeout to wait "
                        + "longer.");
                }
                sleep(100);
                maybeStep(true);
            }
            step();
            // every session is settled: a hand-off still open now will never be answered
            for (Entry e : parked.values()) {
                noOutput++;
                closeOpen(e);
            }
            parked.clear();
            snapshots.drainAll(this::emitSnapshot);
            deadLetters.drainAll(this::emitDeadLetter);
            return new Result(records, sessions, snapshotCount, codes, noOutput, unmatched, unplaced,
                app.batonCounters(), snapshots.spilledBytes() + deadLetters.spilledBytes(), brokerDiskPeak);
        }

        private void send(Send s) {
            int partition = s.key() == null
                ? (int) Math.floorMod(s.position(), (long) windows.length)
                : Utils.toPositive(Utils.murmur2(s.key())) % windows.length;
            RecordHeaders headers = new RecordHeaders();
            if (s.sourceLine() >= 0) {
                headers.add(SOURCE_LINE_HEADER, Long.toString(s.sourceLine()).getBytes(StandardCharsets.UTF_8));
            }
            Entry entry = new Entry(s.position(), s.snapshotId(), s.mayWait(),
                (s.key() == null ? 0 : s.key().length) + (s.value() == null ? 0 : s.value().length));
            if (s.snapshotId() != null) {
                open.computeIfAbsent(s.snapshotId(), k -> new ArrayDeque<>(1)).add(entry);
            }
            produce(new ProducerRecord<>(config.sessionEventsTopic(), partition, null, s.key(), s.value(), headers),
                partition, entry);
        }

        private void settle(String sessionKey) {
            byte[] key = sessionKey.getBytes(StandardCharsets.UTF_8);
            int partition = Utils.toPositive(Utils.murmur2(key)) % windows.length;
            RecordHeaders headers = new RecordHeaders();
            headers.add(SessionContextProcessor.CONTROL_HEADER,
                SessionContextProcessor.SETTLE.getBytes(StandardCharsets.UTF_8));
            produce(new ProducerRecord<>(config.sessionEventsTopic(), partition, null, key, new byte[0], headers),
                partition, new Entry(NO_POSITION, null, false, key.length));
        }

        private void produce(ProducerRecord<byte[], byte[]> record, int partition, Entry entry) {
            while (inFlight >= MAX_IN_FLIGHT || inFlightBytes >= MAX_IN_FLIGHT_BYTES) {
                // the broker holds what the application has not read yet; the replay keeps only a bounded window
                sleep(50);
                maybeStep(true);
            }
            throwIfSendFailed();
            windows[partition].add(entry);
            inFlight++;
            inFlightBytes += entry.bytes;
            producer.send(record, (meta, e) -> {
                if (e != null) {
                    sendFailure.compareAndSet(null, e);
                }
            });
        }

        private void throwIfSendFailed() {
            Exception e = sendFailure.get();
            if (e != null) {
                throw new AppFailure(ExitCodes.FAILED, "cannot write to " + config.sessionEventsTopic() + ": "
                    + e.getMessage(), e);
            }
            app.throwIfFailed();
        }

        private void maybeStep(boolean force) {
            long now = System.nanoTime();
            if (force || now - lastStepNanos > 250_000_000L) {
                lastStepNanos = now;
                try {
                    step();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }

        /** Follows the committed offsets, reads the outputs, and hands over what is in order. */
        private void step() throws IOException {
            throwIfSendFailed();
            Map<TopicPartition, Long> committed = committedOffsets();
            readOutputs();
            for (int p = 0; p < windows.length; p++) {
                long c = committed.getOrDefault(inputPartitions.get(p), 0L);
                Window w = windows[p];
                while (w.size > 0 && w.baseOffset < c) {
                    commit(w.poll());
                }
            }
            long watermark = Math.min(nextPosition + 1, lowestInFlight());
            if (nextPosition == NO_POSITION) {
                watermark = lowestInFlight();
            }
            deadLetters.drainBelow(watermark, this::emitDeadLetter);
            long snapshotWatermark = parked.isEmpty() ? watermark : Math.min(watermark, parked.firstKey());
            snapshots.drainBelow(snapshotWatermark, this::emitSnapshot);
            processed.accept(committedRecords + rejected);
            purge(committed);
        }

        private long lowestInFlight() {
            long low = NO_POSITION;
            for (Window w : windows) {
                Entry first = w.first();
                if (first != null && first.position < low) {
                    low = first.position;
                }
            }
            return low;
        }

        private void commit(Entry e) {
            inFlight--;
            inFlightBytes -= e.bytes;
            if (e.position != NO_POSITION) {
                committedRecords++;
            }
            if (e.snapshotId == null || e.resolved) {
                return;
            }
            if (e.mayWait) {
                parked.put(e.position, e); // may be waiting for turns: open until its snapshot comes
            } else {
                e.resolved = true;       // processed without an answer: a duplicate hand-off id
                noOutput++;
                closeOpen(e);
            }
        }

        private void closeOpen(Entry e) {
            ArrayDeque<Entry> q = open.get(e.snapshotId);
            if (q != null) {
                q.remove(e);
                if (q.isEmpty()) {
                    open.remove(e.snapshotId);
                }
            }
        }

        private Map<TopicPartition, Long> committedOffsets() {
            try {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin
                    .listConsumerGroupOffsets(config.applicationId()).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
                Map<TopicPartition, Long> out = new HashMap<>();
                offsets.forEach((tp, o) -> {
                    if (o != null) {
                        out.put(tp, o.offset());
                    }
                });
                return out;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new AppFailure(ExitCodes.FAILED, "cannot follow the application's progress: " + e, e);
            }
        }

        /** Reads both output topics to their current ends. */
        private void readOutputs() throws IOException {
            Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(60));
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (!reached(ends)) {
                if (System.nanoTime() > deadline) {
                    throw new AppFailure(ExitCodes.FAILED, "cannot read the output topics to their end");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.topic().equals(config.contextSnapshotsTopic())) {
                        onSnapshot(r.value());
                    } else {
                        onDeadLetter(r);
                    }
                }
            }
            for (TopicPartition tp : consumer.assignment()) {
                readPositions.put(tp, consumer.position(tp));
            }
        }

        private boolean reached(Map<TopicPartition, Long> ends) {
            for (var e : ends.entrySet()) {
                if (consumer.position(e.getKey()) < e.getValue()) {
                    return false;
                }
            }
            return true;
        }

        private void onSnapshot(byte[] value) throws IOException {
            String id = snapshotIdOf.apply(value);
            ArrayDeque<Entry> q = open.get(id);
            Entry e = q == null ? null : q.pollFirst();
            if (e == null) {
                unmatched++;
                return;
            }
            if (q.isEmpty()) {
                open.remove(id);
            }
            e.resolved = true;
            parked.remove(e.position);
            snapshots.add(e.position, value);
        }

        private void onDeadLetter(ConsumerRecord<byte[], byte[]> r) throws IOException {
            Map<String, String> headers = new HashMap<>();
            for (Header h : r.headers()) {
                headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
            }
            ReportedDeadLetter dl = new ReportedDeadLetter(headers.get(DeadLetterHeaders.CODE),
                headers.get(DeadLetterHeaders.MESSAGE), r.key(), r.value(), r.value() == null ? 0 : r.value().length);
            Entry e = null;
            try {
                int partition = Integer.parseInt(headers.get(DeadLetterHeaders.SOURCE_PARTITION));
                long offset = Long.parseLong(headers.get(DeadLetterHeaders.SOURCE_OFFSET));
                if (config.sessionEventsTopic().equals(headers.get(DeadLetterHeaders.SOURCE_TOPIC))
                    && partition >= 0 && partition < windows.length) {
                    e = windows[partition].at(offset);
                }
            } catch (RuntimeException noSource) {
                // a dead letter that names no input record: counted below
            }
            if (e == null || e.position == NO_POSITION) {
                unplaced++;
                deadLetters.add(NO_POSITION, dl.encode());
                return;
            }
            if (e.snapshotId != null && !e.resolved) {
                e.resolved = true;
                parked.remove(e.position);
                closeOpen(e);
            }
            codes.merge(dl.code(), 1L, Long::sum);
            deadLetters.add(e.position, dl.encode());
        }

        private void emitSnapshot(long position, byte[] value) throws IOException {
            snapshotCount++;
            sink.snapshot(position, value);
        }

        private void emitDeadLetter(long position, byte[] encoded) throws IOException {
            sink.deadLetter(position, ReportedDeadLetter.decode(encoded));
        }

        /** Deletes what is consumed (input below the committed offsets, output already read) every few seconds. */
        private void purge(Map<TopicPartition, Long> committed) {
            long now = System.nanoTime();
            if (now - lastPurgeNanos < 5_000_000_000L) {
                return;
            }
            lastPurgeNanos = now;
            Map<TopicPartition, RecordsToDelete> deletions = new HashMap<>();
            committed.forEach((tp, offset) -> {
                if (tp.topic().equals(config.sessionEventsTopic()) && offset > 0) {
                    deletions.put(tp, RecordsToDelete.beforeOffset(offset));
                }
            });
            readPositions.forEach((tp, offset) -> {
                if (offset > 0) {
                    deletions.put(tp, RecordsToDelete.beforeOffset(offset));
                }
            });
            try {
                admin.deleteRecords(deletions).all().get(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                // disk is reclaimed a little later, that is all
            }
            if (embedded != null) {
                brokerDiskPeak = Math.max(brokerDiskPeak, embedded.diskUsageBytes());
            }
        }

        @Override
        public void close() {
            snapshots.close();
            deadLetters.close();
            sessionKeys.close();
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            admin.close(Duration.ofSeconds(5));
        }
    }

    private KafkaConsumer<byte[], byte[]> outputConsumer() {
        Map<String, Object> props = only(ConsumerConfig.configNames());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // a fetch returns at least one whole record whatever these say: smaller fetches only bound the heap
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(1024 * 1024));
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(4 * 1024 * 1024));
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** True for {@code tenant/session} with two valid identifiers: a key the topology can settle. */
    static boolean isSessionKey(String key) {
        return key != null && SessionKey.parse(key).isPresent();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
        }
    }

    @Override
    public void close() {
        try {
            producer.close(Duration.ofSeconds(10));
        } catch (RuntimeException ignored) {
            // closing is best effort
        }
        app.close(Duration.ofSeconds(30));
        if (privateTopics) {
            deletePrivateResources();
        }
        deleteRecursively(stateDir);
        deleteRecursively(workDir);
        if (embedded != null) {
            embedded.close();
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
