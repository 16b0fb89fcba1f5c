package dev.baton.replay;

import dev.baton.app.StreamsApp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongConsumer;

import dev.baton.config.BatonConfig;
import dev.baton.engine.model.SessionKey;

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
 *
 * <p>This class only orchestrates; the parts are {@link ReplayCluster} (the broker, topics, directories, topology and
 * producer, from start to close), {@link ReplayRun} (one run: the sender, the follower of committed offsets and the
 * matcher of outputs to input records), {@link InFlightWindow} (what is sent to one partition and not yet committed),
 * {@link OrderedSpool} (the reorder buffers) and {@link DeadLetterSpoolCodec} (a dead letter in a buffer).
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
     * @param receipts         with a hand-off receipts topic (and outcomes topic): receipts on in the topology
     */
    record Settings(String bootstrapServers, Map<String, String> baseConfig, String format, String registryUrl,
                    String runName, int partitions, boolean receipts) {
        /** Receipts off. */
        Settings(String bootstrapServers, Map<String, String> baseConfig, String format, String registryUrl,
                 String runName, int partitions) {
            this(bootstrapServers, baseConfig, format, registryUrl, runName, partitions, false);
        }
    }

    /** One item of the input: a record to send, or a line rejected before sending. */
    sealed interface Item permits Send, Reject, Receipt {
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

    /**
     * A hand-off receipt to send to the receipts topic (only with {@link Settings#receipts()}), keyed like the events.
     *
     * @param sourceLine the input line sent as header {@value #SOURCE_LINE_HEADER}
     */
    record Receipt(long position, byte[] key, byte[] value, long sourceLine) implements Item {
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
    }

    /** Where the results go, each kind in input order. */
    interface Sink {
        void snapshot(long position, byte[] value) throws IOException;

        void deadLetter(long position, ReportedDeadLetter deadLetter) throws IOException;

        /**
         * A hand-off outcome (receipts on only), after every snapshot and dead letter: ordered by the input line of the
         * hand-off whose snapshot it joins, then (one snapshot's outcomes) in the order its receipts were processed.
         */
        default void outcome(byte[] value) throws IOException {
        }
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
    private final ReplayCluster cluster;

    private Replay(Settings settings, BrokerStart broker) {
        this.settings = settings;
        this.cluster = new ReplayCluster(settings, broker);
    }

    /** Starts the broker (unless one is given), creates the topics and starts the topology. */
    static Replay open(Settings settings) {
        return new Replay(settings, null);
    }

    /**
     * Like {@link #open(Settings)}, on an in-process broker that {@code broker} is starting already (null: start one
     * now, unless the settings name a cluster).
     */
    static Replay open(Settings settings, BrokerStart broker) {
        return new Replay(settings, broker);
    }

    BatonConfig config() {
        return cluster.config();
    }

    StreamsApp app() {
        return cluster.app();
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
        try (ReplayRun run = new ReplayRun(cluster, settings.partitions(), snapshotIdOf, sink, processed)) {
            return run.execute(source, timeout);
        }
    }

    /** True for {@code tenant/session} with two valid identifiers: a key the topology can settle. */
    static boolean isSessionKey(String key) {
        return key != null && SessionKey.parse(key).isPresent();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
