package dev.baton.config;

import dev.baton.engine.policy.PolicyField;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

import static dev.baton.config.BatonConfig.CONTEXT_SNAPSHOTS_TOPIC;
import static dev.baton.config.BatonConfig.DEAD_LETTERS_TOPIC;
import static dev.baton.config.BatonConfig.FORMAT;
import static dev.baton.config.BatonConfig.HTTP_BIND_ADDRESS;
import static dev.baton.config.BatonConfig.HTTP_MAX_CONCURRENT_QUERIES;
import static dev.baton.config.BatonConfig.HTTP_MAX_URL_CHARS;
import static dev.baton.config.BatonConfig.HTTP_PORT;
import static dev.baton.config.BatonConfig.HTTP_TOKENS_FILE;
import static dev.baton.config.BatonConfig.INPUT_PARTITIONER;
import static dev.baton.config.BatonConfig.MAX_OUTPUT_BYTES;
import static dev.baton.config.BatonConfig.POLICY_PREFIX;
import static dev.baton.config.BatonConfig.PUNCTUATE_INTERVAL_MS;
import static dev.baton.config.BatonConfig.WARMUP_MAX_MS;
import static dev.baton.config.BatonConfig.PUNCTUATE_MAX_SESSIONS;
import static dev.baton.config.BatonConfig.PUNCTUATE_WALL_CLOCK;
import static dev.baton.config.BatonConfig.REGISTRY_AUTO_REGISTER;
import static dev.baton.config.BatonConfig.REGISTRY_BASIC_AUTH;
import static dev.baton.config.BatonConfig.REGISTRY_BEARER_TOKEN;
import static dev.baton.config.BatonConfig.REGISTRY_TRUSTSTORE;
import static dev.baton.config.BatonConfig.REGISTRY_TRUSTSTORE_PASSWORD;
import static dev.baton.config.BatonConfig.REGISTRY_TRUSTSTORE_TYPE;
import static dev.baton.config.BatonConfig.ROCKSDB_TOTAL_BYTES;
import static dev.baton.config.BatonConfig.ROCKSDB_WRITE_BUFFER_BYTES;
import static dev.baton.config.BatonConfig.SCHEMA_REGISTRY_URL;
import static dev.baton.config.BatonConfig.SESSION_EVENTS_TOPIC;
import static dev.baton.config.BatonConfig.STATE_CACHE_MAX_BYTES;
import static dev.baton.config.BatonConfig.STATE_CHANGELOG;
import static dev.baton.config.BatonConfig.TENANT_POLICIES_TOPIC;
import static dev.baton.config.BatonConfig.HANDOFF_OUTCOMES_TOPIC;
import static dev.baton.config.BatonConfig.HANDOFF_RECEIPTS_TOPIC;
import static dev.baton.config.BatonConfig.METRICS_TENANTS;

/**
 * Every setting Baton knows, on Kafka's own {@link ConfigDef}: key, type, built-in default, validator and what it
 * does, in documentation order. {@link BatonConfig} checks each value against it, and docs/configuration.md's settings
 * table is written from it ({@link ConfigurationTable}). Kafka settings listed here are the ones Baton gives a
 * default or a check; every other Kafka setting passes through unchecked.
 *
 * <p>{@code baton.policy.*} comes from the policy table ({@link PolicyField}): its default is the contract's, and an
 * unset key is not put in the configuration (the default policy starts from {@code Policy.defaults()}).
 */
final class BatonSettings {
    private BatonSettings() {
    }

    static ConfigDef definition() {
        ConfigDef def = new ConfigDef()
                .define(SESSION_EVENTS_TOPIC, Type.STRING, "baton.session-events", Importance.MEDIUM,
                        "Input topic of SessionEvents.")
                .define(CONTEXT_SNAPSHOTS_TOPIC, Type.STRING, "baton.context-snapshots", Importance.MEDIUM,
                        "Output topic of ContextSnapshots (one per hand-off).")
                .define(DEAD_LETTERS_TOPIC, Type.STRING, "baton.dead-letters", Importance.MEDIUM,
                        "Dead-letter topic: original key and value bytes, headers baton.error.* and baton.source.*.")
                .define(TENANT_POLICIES_TOPIC, Type.STRING, "baton.tenant-policies", Importance.MEDIUM,
                        "Compacted topic of TenantPolicy records, read as a global table; empty: no tenant policies.")
                .define(HANDOFF_RECEIPTS_TOPIC, Type.STRING, "", Importance.MEDIUM,
                        "Input topic of HandoffReceipts, keyed and partitioned like the session events (e.g. "
                                + "baton.handoff-receipts); empty: receipts off.")
                .define(HANDOFF_OUTCOMES_TOPIC, Type.STRING, "baton.handoff-outcomes", Importance.MEDIUM,
                        "Output topic of HandoffOutcomes (snapshots joined with their receipts); written while "
                                + "receipts are on.")
                .define(METRICS_TENANTS, Type.STRING, "", Importance.LOW,
                        "Comma-separated tenants whose cost metrics carry their own tenant label; every other "
                                + "tenant is counted as `other` (a bounded label set).")
                .define(FORMAT, Type.STRING, "avro", ConfigDef.ValidString.in("avro", "json"), Importance.MEDIUM,
                        "Value format of all topics: Avro in the Confluent wire format, or JSON.")
                .define(SCHEMA_REGISTRY_URL, Type.STRING, null, Importance.MEDIUM,
                        "Confluent-compatible schema registry base URL (mock://NAME: in-memory). Required for avro.")
                .define(REGISTRY_BASIC_AUTH, Type.STRING, "", Importance.MEDIUM,
                        "`USER:PASSWORD` for the registry's HTTP basic auth (like Confluent's basic.auth.user.info); "
                                + "secret, never printed.")
                .define(REGISTRY_BEARER_TOKEN, Type.STRING, "", Importance.MEDIUM,
                        "A bearer token for the registry (Authorization: Bearer); secret, never printed.")
                .define(REGISTRY_TRUSTSTORE, Type.STRING, "", Importance.MEDIUM,
                        "Trust store for the registry's TLS certificate (empty: the JVM's default trust).")
                .define(REGISTRY_TRUSTSTORE_PASSWORD, Type.STRING, "", Importance.MEDIUM,
                        "Its password; secret, never printed.")
                .define(REGISTRY_TRUSTSTORE_TYPE, Type.STRING, "PKCS12", Importance.MEDIUM,
                        "Its type: PKCS12 or JKS.")
                .define(REGISTRY_AUTO_REGISTER, Type.BOOLEAN, "true", Importance.MEDIUM,
                        "false: never register a schema; write with the one already registered under the subject "
                                + "(its latest version when it is Baton's schema), for registries that forbid "
                                + "auto-registration.")
                .define(PUNCTUATE_INTERVAL_MS, Type.LONG, "1000", Bounds.between(1, Long.MAX_VALUE), Importance.MEDIUM,
                        "How often the wall-clock punctuator visits the sessions with something due.")
                .define(PUNCTUATE_WALL_CLOCK, Type.BOOLEAN, "true", Importance.MEDIUM,
                        "Wall-clock punctuation (gap and hand-off waits, grace, TTL). false: backfill mode, settled "
                                + "by control records; closed sessions keep their state.")
                .define(PUNCTUATE_MAX_SESSIONS, Type.INT, "10000", Bounds.between(1, Integer.MAX_VALUE),
                        Importance.MEDIUM,
                        "At most this many sessions are visited per punctuation; the rest wait for the next one.")
                .define(STATE_CACHE_MAX_BYTES, Type.LONG, "33554432", Bounds.between(0, Long.MAX_VALUE),
                        Importance.MEDIUM,
                        "Bound of the decoded-session-state cache of each stream task, in bytes (busy sessions are not "
                                + "read back from their stored turns on every event); 0: no cache.")
                .define(STATE_CHANGELOG, Type.BOOLEAN, "true", Importance.MEDIUM,
                        "false: the session stores are not changelogged, so their state cannot be restored after a "
                                + "crash, a rebalance or a lost state directory. Only for runs whose state never "
                                + "outlives the process: `baton backfill` and `demo` set it (a failure fails the "
                                + "whole run); not for `baton run`.")
                .define(ROCKSDB_TOTAL_BYTES, Type.LONG, "268435456", Bounds.between(1_048_576, Long.MAX_VALUE),
                        Importance.MEDIUM,
                        "Off-heap memory of all RocksDB stores of the instance: one shared block cache (data, index "
                                + "and filter blocks) that the memtables are charged to.")
                .define(ROCKSDB_WRITE_BUFFER_BYTES, Type.LONG, "67108864", Bounds.between(1_048_576, Long.MAX_VALUE),
                        Importance.MEDIUM,
                        "Part of baton.rocksdb.total.bytes the memtables of all stores may use together.")
                .define(HTTP_PORT, Type.INT, "8080", Bounds.between(0, 65535), Importance.MEDIUM,
                        "Port of the HTTP endpoints of `baton run` (health, metrics, queries); 0: any free port.")
                .define(HTTP_BIND_ADDRESS, Type.STRING, "127.0.0.1", Importance.MEDIUM,
                        "Address the HTTP endpoints listen on: loopback by default; 0.0.0.0 in a container (the "
                                + "image, docker-compose.yml and deploy/ set it) so that probes and peers reach it.")
                .define(HTTP_TOKENS_FILE, Type.STRING, "", Importance.MEDIUM,
                        "File of bearer tokens for /sessions queries, one `TOKEN TENANT[,TENANT...]` (or `TOKEN *`) "
                                + "per line, e.g. a mounted Secret; read again (at most once a second) when it "
                                + "changes. A file that becomes unreadable or invalid revokes every token (503) until "
                                + "it is valid again (`baton_http_tokens_valid` 0; docs/operations.md, \"Who may "
                                + "query sessions\"). Empty: every session query is refused (401).")
                .define(INPUT_PARTITIONER, Type.STRING, "murmur2", ConfigDef.ValidString.in("murmur2", "crc32"),
                        Importance.MEDIUM,
                        "How the producers of the session-events topic choose a key's partition, so that /sessions "
                                + "asks the instance that holds the session: `murmur2` (Kafka's Java client, Kafka "
                                + "Streams, kafkajs) or `crc32` (librdkafka's default, `consistent_random`: "
                                + "confluent-kafka for Python and Go, node-rdkafka, kcat). Processing does not "
                                + "depend on it (docs/operations.md, \"Which partition holds a session\").")
                .define(HTTP_MAX_URL_CHARS, Type.INT, "2048", Bounds.between(64, 65536), Importance.MEDIUM,
                        "Longer request URIs are answered 414.")
                .define(HTTP_MAX_CONCURRENT_QUERIES, Type.INT, "4", Bounds.between(1, 1024), Importance.MEDIUM,
                        "Session queries rendered at once (as many more wait); past that 503 at once. Health, "
                                + "readiness and metrics never wait behind them.")
                .define(MAX_OUTPUT_BYTES, Type.INT, Integer.toString(8 * 1024 * 1024),
                        Bounds.between(256 * 1024, Integer.MAX_VALUE),
                        Importance.MEDIUM,
                        "No record Baton writes (snapshot, dead letter, state entry) is larger; the producer's "
                                + "max.request.size and the changelogs' max.message.bytes follow it, and `run` refuses "
                                + "to start against output topics with a smaller max.message.bytes.")
                .define(WARMUP_MAX_MS, Type.LONG, "5000", Bounds.between(0, 600_000), Importance.MEDIUM,
                        "`run` only: at most this long, before joining the consumer group, the instance warms its "
                                + "per-event code (decode, apply, render, hash, encode) on a built-in synthetic "
                                + "workload, touching no topic, store or registry, and stops earlier once the cost "
                                + "per event stopped falling; `/readyz` says `warming up` meanwhile. 0: no warm-up "
                                + "(docs/operations.md, \"Warm-up before serving\").")
                .define(StreamsConfig.APPLICATION_ID_CONFIG, Type.STRING, "baton", Importance.MEDIUM,
                        "Kafka Streams application id (consumer group, prefix of internal topics).")
                .define(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, Type.STRING, "localhost:9092", Importance.MEDIUM,
                        "Kafka brokers.")
                .define(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, Type.STRING, StreamsConfig.EXACTLY_ONCE_V2,
                        ConfigDef.ValidString.in(StreamsConfig.EXACTLY_ONCE_V2, StreamsConfig.AT_LEAST_ONCE),
                        Importance.MEDIUM,
                        "Exactly-once: state, snapshots and dead letters commit together.")
                .define(StreamsConfig.REPLICATION_FACTOR_CONFIG, Type.INT, "3", Bounds.between(-1, Short.MAX_VALUE),
                        Importance.MEDIUM,
                        "Replication factor of the internal (changelog) topics; -1: the broker's default; "
                                + "1 for a single broker (embedded, tests). With 2 or more, the changelogs' "
                                + "min.insync.replicas (`topic.min.insync.replicas`) is min(2, this - 1) unless set.")
                .define(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, Type.INT, "1", Bounds.between(0, Integer.MAX_VALUE),
                        Importance.MEDIUM,
                        "Warm copies of each task's state on other instances (fast fail-over).")
                .define(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Type.INT, "6000",
                        Bounds.between(1, Integer.MAX_VALUE),
                        Importance.MEDIUM,
                        "Consumer session timeout: an instance that stops without leaving the group (kill -9, a lost "
                                + "node) gives up its partitions after this long (Kafka's default is 45 s). With a "
                                + "standby replica its partitions resume on a survivor within 15 s; see "
                                + "docs/operations.md.")
                .define(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, "1500",
                        Bounds.between(1, Integer.MAX_VALUE),
                        Importance.MEDIUM,
                        "Consumer heartbeat interval (a quarter of the session timeout).")
                .define(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Type.INT, "6000",
                        Bounds.between(1, Integer.MAX_VALUE),
                        Importance.MEDIUM,
                        "Exactly-once: a transaction left open by an instance that died is aborted after this long, "
                                + "and read_committed readers wait for it (Kafka Streams' default is 10 s).")
                .define(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Type.LONG, "100", Bounds.between(1, Long.MAX_VALUE),
                        Importance.MEDIUM,
                        "Commit interval; 100 ms is Kafka's exactly-once default (output latency).")
                .define(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Type.INT, "1", Bounds.between(1, Integer.MAX_VALUE),
                        Importance.MEDIUM,
                        "Stream threads per instance.")
                .define(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, Type.BOOLEAN, "true",
                        Importance.MEDIUM,
                        "Refuse to start if any store or internal topic has a generated name (KIP-1111).")
                .define(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, Type.STRING, null, Importance.MEDIUM,
                        "Safety net: an unexpected processing failure dead-letters the input as INTERNAL; default: "
                                + "dev.baton.topology.BatonProcessingExceptionHandler (set by the topology).")
                .define("processing.exception.handler.global.enabled", Type.BOOLEAN, "true", Importance.MEDIUM,
                        "The processing exception handler also guards the global (tenant policy) store; Kafka 5.0's "
                                + "default.")
                .define(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, Type.STRING, null, Importance.MEDIUM,
                        "An output the broker refuses (too large) dead-letters its input as INTERNAL; default: "
                                + "dev.baton.topology.BatonProductionExceptionHandler (set by the topology).")
                .define(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, Type.STRING, null, Importance.MEDIUM,
                        "Kafka Streams' own dead-letter topic (KIP-1034); default: " + DEAD_LETTERS_TOPIC + ".");
        for (PolicyField f : PolicyField.values()) {
            String doc = "Default policy: TenantPolicy field `" + f.key() + "`. " + f.doc();
            switch (f.type()) {
                case INT -> def.define(POLICY_PREFIX + f.key(), Type.INT, f.defaultValue(), Bounds.between(f.min(),
                        f.max()), Importance.MEDIUM, doc);
                case LONG -> def.define(POLICY_PREFIX + f.key(), Type.LONG, f.defaultValue(), Bounds.between(f.min(),
                        f.max()), Importance.MEDIUM, doc);
                case TEXT -> def.define(POLICY_PREFIX + f.key(), Type.STRING, f.defaultValue(), Importance.MEDIUM,
                        doc);
            }
        }
        return def;
    }

    /** A whole number from {@code min} to {@code max}, inclusive: Kafka's {@code Range} with readable bounds. */
    record Bounds(long min, long max) implements ConfigDef.Validator {
        static Bounds between(long min, long max) {
            return new Bounds(min, max);
        }

        @Override
        public void ensureValid(String name, Object value) {
            long n = ((Number) value).longValue();
            if (n < min || n > max) throw new ConfigException(name, value, "out of range " + min + ".." + max);
        }

        @Override
        public String toString() {
            return "[" + min + ",...," + max + "]";
        }
    }
}
