package dev.baton.cli.data;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.config.BatonConfig;
import dev.baton.config.ConfigLoader;
import dev.baton.service.command.ConnectionOptions;
import dev.baton.serde.SchemaRegistries;
import dev.baton.serde.SchemaRegistryClient;

/**
 * The configuration and Kafka clients of the data commands ({@code tail}, {@code produce}, {@code policy},
 * {@code dead-letters}): the same sources as {@code baton run} (the {@code --config} file, {@code BATON_*} variables,
 * then the flags), so topic names, format, registry and security settings are the service's own. Consumers read
 * {@code read_committed} (Baton writes in transactions) and join no group: they assign partitions themselves, so they
 * commit nothing and need no group ACL. Producers are idempotent.
 */
public final class ClusterClients {

    private final BatonConfig config;

    private ClusterClients(BatonConfig config) {
        this.config = config;
    }

    /** Loads the configuration as {@code run} does; a configuration error is exit code 2. */
    public static ClusterClients load(ConnectionOptions connection) {
        BatonConfig config = ConfigLoader.build(builder(connection));
        if (config.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
            throw new AppFailure(ExitCodes.USAGE, "no Kafka to talk to: give --bootstrap-servers "
                    + "(or BATON_BOOTSTRAP_SERVERS, or bootstrap.servers in --config)");
        }
        return new ClusterClients(config);
    }

    /**
     * The configuration for work that needs no Kafka and no registry ({@code produce --check}): formats and limits as
     * configured, but an Avro configuration without a registry URL is accepted (the check encodes in memory).
     */
    public static BatonConfig offline(ConnectionOptions connection) {
        BatonConfig.Builder builder = builder(connection);
        // a placeholder that is never contacted (the Avro check uses a registry of its own), so that an Avro
        // configuration without a registry URL is not refused
        ConfigLoader.attempt(b -> b.set(BatonConfig.SCHEMA_REGISTRY_URL, "mock://baton-offline-check"), builder);
        return ConfigLoader.build(builder);
    }

    private static BatonConfig.Builder builder(ConnectionOptions connection) {
        BatonConfig.Builder builder = ConfigLoader.builder(connection.config(), System.getenv());
        ConfigLoader.attempt(b -> {
            if (connection.bootstrapServers() != null) b.flag("--bootstrap-servers", connection.bootstrapServers());
            if (connection.schemaRegistryUrl() != null) b.flag("--schema-registry-url", connection.schemaRegistryUrl());
            if (connection.format() != null) b.flag("--format", connection.format().name());
            return b;
        }, builder);
        return builder;
    }

    public BatonConfig config() {
        return config;
    }

    /** {@code avro} or {@code json}: the value format of Baton's topics. */
    public String format() {
        return config.format().name();
    }

    /** The schema registry client (Avro), or null (JSON). */
    public SchemaRegistryClient registry() {
        return config.format() == BatonConfig.Format.AVRO
                ? SchemaRegistries.forUrl(config.schemaRegistryUrl().orElseThrow(), config.registryOptions()) : null;
    }

    /** A consumer of bytes, read_committed, in no group, with the connection and security settings. */
    public Properties consumerProperties() {
        Properties p = clientProperties(ConsumerConfig.configNames(), StreamsConfig.CONSUMER_PREFIX);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "baton-cli");
        return p;
    }

    /** An idempotent producer of bytes (acks=all; order within a partition kept across retries). */
    public Properties producerProperties() {
        Properties p = clientProperties(ProducerConfig.configNames(), StreamsConfig.PRODUCER_PREFIX);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "baton-cli");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) Duration.ofSeconds(30).toMillis());
        return p;
    }

    /** The settings a client knows, then its {@code consumer.}/{@code producer.}-prefixed overrides (as Streams does). */
    private Properties clientProperties(Set<String> known, String prefix) {
        Map<String, Object> all = config.kafkaProperties();
        Map<String, Object> out = new HashMap<>();
        Predicate<String> isKnown = known::contains;
        all.forEach((k, v) -> {
            if (isKnown.test(k)) out.put(k, v);
        });
        all.forEach((k, v) -> {
            if (k.startsWith(prefix) && isKnown.test(k.substring(prefix.length()))) out.put(k.substring(prefix.length()), v);
        });
        Properties p = new Properties();
        p.putAll(out);
        return p;
    }
}
