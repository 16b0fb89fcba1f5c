package dev.baton.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.baton.replay.embedded.EmbeddedKafka;

/**
 * A real single-node KRaft Kafka broker for integration tests, started once per test class:
 * <pre>{@code @RegisterExtension static final KafkaBroker kafka = new KafkaBroker();}</pre>
 * It is the production {@link EmbeddedKafka} (replication factor 1 everywhere, pinned production
 * metadata version, exactly-once ready), always closed after the class, with helpers for client
 * properties. It can also be used without JUnit: {@link #start()} and {@link #close()}.
 */
public final class KafkaBroker implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    private final int brokers;
    private final Map<String, String> brokerOverrides;
    private EmbeddedKafka kafka;

    public KafkaBroker() {
        this(Map.of());
    }

    public KafkaBroker(Map<String, String> brokerOverrides) {
        this(1, brokerOverrides);
    }

    /** A cluster of {@code brokers} brokers and one controller ({@link EmbeddedKafka#startCluster}). */
    public KafkaBroker(int brokers, Map<String, String> brokerOverrides) {
        this.brokers = brokers;
        this.brokerOverrides = Map.copyOf(brokerOverrides);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** Starts the broker (once); returns this for chaining. */
    public synchronized KafkaBroker start() {
        if (kafka == null) {
            kafka = EmbeddedKafka.startCluster(brokers, brokerOverrides);
        }
        return this;
    }

    /** The running broker. */
    public EmbeddedKafka kafka() {
        if (kafka == null) {
            throw new IllegalStateException("the broker is not started: register KafkaBroker as an extension or call start()");
        }
        return kafka;
    }

    public String bootstrapServers() {
        return kafka().bootstrapServers();
    }

    public void createTopics(int partitions, String... names) {
        kafka().createTopics(partitions, names);
    }

    /** Byte-array producer properties; {@code transactionalId} null for a plain idempotent producer. */
    public Properties producerProps(String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        if (transactionalId != null) {
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return props;
    }

    /**
     * Where the committed records of {@code topic} are ({@code topic-partition@offset}): every record committed when
     * this is called (see {@link #readCommitted}), e.g. to show that nothing was dead-lettered.
     */
    public List<String> positionsIn(String topic, String groupId, Duration atMost) {
        List<String> seen = new ArrayList<>();
        readCommitted(topic, groupId, atMost, r -> seen.add(r.topic() + "-" + r.partition() + "@" + r.offset()));
        return seen;
    }

    /**
     * Hands {@code each} every record of {@code topic} committed when this is called, from the earliest offset up to
     * each partition's end as a read_committed consumer sees it (the last stable offset) — a read that ends when the
     * records are read, not after a time that a loaded machine may not fill; {@code atMost} only bounds it.
     */
    public void readCommitted(String topic, String groupId, Duration atMost, Consumer<ConsumerRecord<byte[], byte[]>> each) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps(groupId))) {
            List<TopicPartition> partitions = c.partitionsFor(topic, atMost).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            if (partitions.isEmpty()) {
                throw new IllegalStateException("no topic " + topic);
            }
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = c.endOffsets(partitions, atMost);
            Awaitility.await("the committed records of " + topic).atMost(atMost).pollInSameThread()
                    .pollInterval(Duration.ZERO).until(() -> {
                        c.poll(Duration.ofMillis(200)).forEach(each);
                        return ends.entrySet().stream().allMatch(e -> c.position(e.getKey()) >= e.getValue());
                    });
        }
    }

    /** Byte-array consumer properties reading committed records only, from the earliest offset. */
    public Properties consumerProps(String groupId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return props;
    }

    @Override
    public synchronized void close() {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
    }
}
