package dev.baton.topology;

import dev.baton.config.BatonConfig;
import dev.baton.processor.DeadLetterCounter;
import dev.baton.processor.HandoffReceiptProcessor;
import dev.baton.processor.HandoffTracing;
import dev.baton.processor.TenantLabels;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.processor.JTokkitTokenizers;
import dev.baton.processor.SessionProcessorOptions;
import dev.baton.processor.TenantPolicyStoreUpdater;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.state.Stores;

import java.util.Properties;

/**
 * Baton's topology, built by a pure function of the configuration (and codecs):
 * <pre>
 *   baton.session-events (byte[] key/value)
 *     -> baton-decode            SessionEventDecoder (size, bytes, schema, key, fields); rejections
 *                                -> baton-dead-letter-writer
 *     -> baton-session-context   SessionContextProcessor, stores baton-session-state, baton-session-entries,
 *                                baton-handoff-ids, baton-session-timers, baton-session-provenance (format 2's
 *                                input ranges, read once per migrated session),
 *                                reads the global store baton-tenant-policies
 *          -> baton-snapshot-writer -> baton-context-snapshots-sink (baton.context-snapshots)
 *          -> baton-dead-letter-writer (LATE_TURN, INTERNAL)
 *   baton-dead-letter-writer -> baton-dead-letters-sink (baton.dead-letters)
 *   baton.tenant-policies -> baton-tenant-policies-source -> baton-tenant-policies-updater (global in-memory store:
 *                                each tenant's last valid policy record)
 *   with baton.topic.handoff-receipts set (receipts on), besides:
 *   baton-snapshot-writer -> baton-handoff-receipts (each written snapshot's id and hash)
 *   baton.handoff-receipts -> baton-handoff-receipts-source -> baton-receipts-decode -> baton-handoff-receipts
 *                                HandoffReceiptProcessor, stores baton-handoff-ledger (also read by the session
 *                                processor) and baton-receipt-timers
 *          -> baton-outcome-writer -> baton-handoff-outcomes-sink (baton.handoff-outcomes)
 *          -> baton-dead-letter-writer (RECEIPT_HASH_MISMATCH, UNKNOWN_SNAPSHOT)
 * </pre>
 * Every node and store is named explicitly; the only internal topics are the stores' changelogs
 * ({@code <application.id>-<store>-changelog}): five, seven with receipts on.
 * Run it with {@link #streamsProperties}: they register the exception handlers that dead-letter through it.
 * Details: docs/topology.md.
 */
public final class BatonTopology {
    public static final String SOURCE = "baton-session-events-source";
    public static final String DECODE = "baton-decode";
    public static final String SESSION = "baton-session-context";
    public static final String SNAPSHOT_WRITER = "baton-snapshot-writer";
    public static final String SNAPSHOT_SINK = "baton-context-snapshots-sink";
    public static final String DEAD_LETTER_WRITER = "baton-dead-letter-writer";
    public static final String DEAD_LETTER_SINK = "baton-dead-letters-sink";
    public static final String RECEIPTS_SOURCE = "baton-handoff-receipts-source";
    public static final String RECEIPTS_DECODE = "baton-receipts-decode";
    public static final String RECEIPTS = "baton-handoff-receipts";
    public static final String OUTCOME_WRITER = "baton-outcome-writer";
    public static final String OUTCOME_SINK = "baton-handoff-outcomes-sink";
    public static final String POLICY_SOURCE = "baton-tenant-policies-source";
    public static final String POLICY_UPDATER = "baton-tenant-policies-updater";
    /** Kafka Streams 4.x: whether the processing exception handler also guards global store updates. */
    static final String GLOBAL_PROCESSING_HANDLER = "processing.exception.handler.global.enabled";

    private BatonTopology() {
    }

    /**
     * The Kafka Streams configuration to run Baton's topology with: the configuration's Kafka settings, plus Baton's
     * exception handlers ({@link BatonProcessingExceptionHandler}, {@link BatonProductionExceptionHandler}) unless
     * the configuration names others. The handlers answer with dead letters for Kafka's own dead-letter queue, which
     * the configuration points at Baton's dead-letter topic. The properties also carry the {@link DeadLetterCounter}
     * that the handlers and the dead-letter writer share, so that every dead letter is counted: build them once per
     * {@code KafkaStreams} instance.
     */
    public static Properties streamsProperties(BatonConfig config) {
        Properties p = config.toStreamsProperties();
        p.putIfAbsent(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                BatonProcessingExceptionHandler.class.getName());
        p.putIfAbsent(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG,
                BatonProductionExceptionHandler.class.getName());
        p.put(DeadLetterCounter.CONFIG, new DeadLetterCounter());
        // RocksDB memory bounded by configuration (one shared block cache and write-buffer budget per instance)
        p.putIfAbsent(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbConfig.class.getName());
        p.put(BoundedRocksDbConfig.TOTAL_BYTES, Long.toString(config.rocksDb().totalBytes()));
        p.put(BoundedRocksDbConfig.WRITE_BUFFER_BYTES, Long.toString(config.rocksDb().writeBufferBytes()));
        // Kafka Streams 4.3's partition assignor builds a second StreamsConfig from the main consumer's settings, which
        // carry no Streams setting, so it warned that the handler is off for the global thread although it is on. The
        // main consumer's prefix hands it the same value (docs/topology.md, "Exception handlers").
        String global = p.getProperty(GLOBAL_PROCESSING_HANDLER);
        if (global != null) {
            p.putIfAbsent(StreamsConfig.MAIN_CONSUMER_PREFIX + GLOBAL_PROCESSING_HANDLER, global);
        }
        return p;
    }

    /** The topology with the codecs that {@code baton.format} selects. */
    public static Topology buildTopology(BatonConfig config) {
        return buildTopology(config, BatonCodecs.forConfig(config));
    }

    /** The topology with explicit codecs, without tracing. */
    public static Topology buildTopology(BatonConfig config, BatonCodecs codecs) {
        return buildTopology(config, codecs, HandoffTracing.OFF);
    }

    /** The topology with the codecs that {@code baton.format} selects and hand-off tracing ({@code baton run}). */
    public static Topology buildTopology(BatonConfig config, HandoffTracing tracing) {
        return buildTopology(config, BatonCodecs.forConfig(config), tracing);
    }

    /**
     * The topology with explicit codecs and hand-off tracing (docs/operations.md, "Tracing"): the decoder starts a
     * hand-off event's span, the session processor emits its snapshot under it with its {@code traceparent} header.
     */
    public static Topology buildTopology(BatonConfig config, BatonCodecs codecs, HandoffTracing tracing) {
        // The topology config carries ensure.explicit.internal.resource.naming & co. into the builder.
        Topology topology = new Topology(new TopologyConfig(new StreamsConfig(streamsProperties(config))));
        String policyStore = config.tenantPoliciesTopic().isPresent() ? SessionContextProcessor.POLICY_STORE : null;
        SessionProcessorOptions options = new SessionProcessorOptions(SNAPSHOT_WRITER, DEAD_LETTER_WRITER,
                config.wallClockPunctuation(), config.punctuateInterval(), config.maxSessionsPerPunctuation(),
                config.defaultPolicy(), codecs.policies(), policyStore, JTokkitTokenizers.shared(),
                config.maxOutputBytes(), config.snapshotEncoding(), config.stateCacheMaxBytes());

        topology.addSource(SOURCE, new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                config.sessionEventsTopic());
        topology.addProcessor(DECODE,
                () -> new DecodeProcessor(codecs.events(), SESSION, DEAD_LETTER_WRITER, tracing), SOURCE);
        boolean receipts = config.handoffReceiptsTopic().isPresent();
        String ledger = receipts ? HandoffReceiptProcessor.LEDGER_STORE : null;
        topology.addProcessor(SESSION, () -> new SessionContextProcessor(options, ledger, tracing), DECODE);
        for (var store : SessionContextProcessor.storeBuilders()) {
            // baton.state.changelog=false (backfill, demo: the state dies with the run): no changelog to write
            if (!config.stateChangelog()) store.withLoggingDisabled();
            topology.addStateStore(store, SESSION);
        }
        topology.addProcessor(SNAPSHOT_WRITER, () -> {
            SnapshotWriter w = new SnapshotWriter(codecs.snapshots(), config.contextSnapshotsTopic(),
                    config.maxOutputBytes());
            return receipts ? w.withReceipts(SNAPSHOT_SINK, RECEIPTS) : w;
        }, SESSION);
        topology.addSink(SNAPSHOT_SINK, config.contextSnapshotsTopic(), new ByteArraySerializer(),
                new ByteArraySerializer(), SNAPSHOT_WRITER);
        if (receipts) {
            // Receipts are keyed and partitioned like the events: the join runs in the task that holds the session.
            topology.addSource(RECEIPTS_SOURCE, new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                    config.handoffReceiptsTopic().orElseThrow());
            topology.addProcessor(RECEIPTS_DECODE, () -> new ReceiptDecodeProcessor(codecs.receipts(), RECEIPTS,
                    DEAD_LETTER_WRITER), RECEIPTS_SOURCE);
            TenantLabels labels = new TenantLabels(config.metricsTenants());
            topology.addProcessor(RECEIPTS, () -> new HandoffReceiptProcessor(options, OUTCOME_WRITER, labels),
                    SNAPSHOT_WRITER, RECEIPTS_DECODE);
            for (var store : HandoffReceiptProcessor.storeBuilders()) {
                if (!config.stateChangelog()) store.withLoggingDisabled();
                topology.addStateStore(store, RECEIPTS);
            }
            // the session processor reads the ledger for the brick's previous-outcome line
            topology.connectProcessorAndStateStores(SESSION, HandoffReceiptProcessor.LEDGER_STORE);
            topology.addProcessor(OUTCOME_WRITER, () -> new OutcomeWriter(codecs.outcomes(),
                    config.handoffOutcomesTopic()), RECEIPTS);
            topology.addSink(OUTCOME_SINK, config.handoffOutcomesTopic(), new ByteArraySerializer(),
                    new ByteArraySerializer(), OUTCOME_WRITER);
            topology.addProcessor(DEAD_LETTER_WRITER, () -> new DeadLetterWriter(config.maxOutputBytes()), DECODE,
                    SESSION, RECEIPTS_DECODE, RECEIPTS);
        } else {
            topology.addProcessor(DEAD_LETTER_WRITER, () -> new DeadLetterWriter(config.maxOutputBytes()), DECODE,
                    SESSION);
        }
        topology.addSink(DEAD_LETTER_SINK, config.deadLettersTopic(), new ByteArraySerializer(),
                new ByteArraySerializer(), DEAD_LETTER_WRITER);

        // The policy in force is a function of the policies topic: the updater keeps each tenant's last valid record,
        // Kafka Streams runs restored records through it too, and an in-memory store is rebuilt from the whole topic
        // on every start under the running configuration (docs/decisions.md).
        config.tenantPoliciesTopic().ifPresent(topic -> topology.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(SessionContextProcessor.POLICY_STORE),
                        Serdes.String(), Serdes.ByteArray()).withLoggingDisabled(),
                POLICY_SOURCE, new StringDeserializer(), new ByteArrayDeserializer(), topic, POLICY_UPDATER,
                () -> new TenantPolicyStoreUpdater(SessionContextProcessor.POLICY_STORE, codecs.policies())));
        return topology;
    }
}
