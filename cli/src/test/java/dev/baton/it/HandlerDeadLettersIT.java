package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.config.BatonConfig;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.processor.MetricCatalogue;
import dev.baton.processor.TaskSensors;
import dev.baton.replay.embedded.EmbeddedKafka;
import dev.baton.topology.BatonCodecs;
import dev.baton.topology.BatonTopology;

/**
 * Dead letters that Kafka Streams' exception handlers produce are counted, on a real broker under exactly-once: the
 * topology runs with an encoder that cannot encode the snapshot of one hand-off, so the processing exception handler
 * dead-letters that hand-off's input record (KIP-1034) while the next hand-off goes through. Exactly one record lands
 * on the dead-letter topic, committed, with code {@code INTERNAL}, and {@code dead-letters-total{code="INTERNAL"}}
 * (exported as {@code baton_dead_letters_total}) is 1: the handler counts what it dead-letters in the counter the
 * topology's own dead letters go through. A refused tenant policy record is counted by the global thread in the same
 * registry ({@code policy-records-refused-total}); the valid one is not.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class HandlerDeadLettersIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldCountTheDeadLetterOfAnExceptionHandlerOnceItIsOnTheTopic() throws Exception {
        Path stateDir = Files.createTempDirectory("baton-it-handler-dead-letters");
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", kafka.bootstrapServers());
        settings.put(BatonConfig.FORMAT, "json");
        settings.put("application.id", "baton-it-handler-dead-letters");
        settings.put("replication.factor", "1");
        settings.put("num.standby.replicas", "0");
        settings.put("state.dir", stateDir.toString());
        settings.put(BatonConfig.PUNCTUATE_WALL_CLOCK, "false");
        BatonConfig config = BatonConfig.of(settings);
        String policies = config.tenantPoliciesTopic().orElseThrow();
        kafka.createTopics(1, config.sessionEventsTopic(), config.contextSnapshotsTopic(), config.deadLettersTopic(),
                policies);

        BatonCodecs real = BatonCodecs.forConfig(config);
        BatonCodecs failing = new BatonCodecs(real.events(), (topic, snapshot) -> {
            if (snapshot.handoffId().equals("h-bad")) throw new IllegalStateException("cannot encode h-bad");
            return real.snapshots().encodeHashed(topic, snapshot);
        }, real.policies());

        ContractEvents events = new ContractEvents("2026-12-01T00:00:00Z");
        ObjectNode bad = events.handoff("acme", "s1", "h-bad", "claude");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null))) {
            send(producer, config.sessionEventsTopic(), events.turn("acme", "s1", 0, "user", "USER", "fix the test"));
            send(producer, config.sessionEventsTopic(), bad);
            send(producer, config.sessionEventsTopic(), events.handoff("acme", "s1", "h-good", "claude"));
            producer.send(new ProducerRecord<>(policies, bytes("acme"),
                    bytes("{\"tenant_id\":\"acme\",\"max_waiting_handoffs\":0}"))); // refused: out of bounds
            producer.send(new ProducerRecord<>(policies, bytes("other"),
                    bytes("{\"tenant_id\":\"other\",\"transcript_budget_chars\":3000}")));
        }

        List<ConsumerRecord<byte[], byte[]>> deadLetters = new ArrayList<>();
        List<String> snapshots = new ArrayList<>();
        try (KafkaStreams streams = new KafkaStreams(BatonTopology.buildTopology(config, failing),
                BatonTopology.streamsProperties(config));
             KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("it-handler-dl"))) {
            streams.start();
            consumer.subscribe(List.of(config.contextSnapshotsTopic(), config.deadLettersTopic()));
            // h-good is read after h-bad from the same partition: once its snapshot is committed, h-bad was handled
            Awaitility.await("the snapshot of h-good").atMost(Duration.ofSeconds(120)).pollInSameThread()
                    .pollInterval(Duration.ZERO).until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                            if (r.topic().equals(config.deadLettersTopic())) deadLetters.add(r);
                            else snapshots.add(JSON.readTree(r.value()).get("handoff_id").asText());
                        }
                        return snapshots.contains("h-good") && !deadLetters.isEmpty();
                    });
            Awaitility.await("the refused policy record counted").atMost(Duration.ofSeconds(60))
                    .until(() -> metric(streams, MetricCatalogue.POLICY_RECORDS_REFUSED.streamsName(), null) >= 1);

            assertThat(snapshots).containsExactly("h-good");
            assertThat(deadLetters).singleElement().satisfies(r -> {
                assertThat(header(r, DeadLetterHeaders.CODE)).isEqualTo("INTERNAL");
                assertThat(header(r, DeadLetterHeaders.MESSAGE)).contains("cannot encode h-bad");
                assertThat(r.value()).isEqualTo(JSON.writeValueAsBytes(bad));
            });
            String deadLettersTotal = MetricCatalogue.DEAD_LETTERS.streamsName();
            assertThat(metric(streams, deadLettersTotal, "INTERNAL")).as("dead-letters-total{code=INTERNAL}")
                    .isEqualTo(1.0);
            assertThat(metric(streams, deadLettersTotal, null)).as("dead-letters-total, every code").isEqualTo(1.0);
            assertThat(metric(streams, MetricCatalogue.POLICY_RECORDS_REFUSED.streamsName(), null)).isEqualTo(1.0);
            streams.close(Duration.ofSeconds(30));
        } finally {
            EmbeddedKafka.deleteRecursively(stateDir);
        }
    }

    /** Baton's metric {@code name} summed over tasks, as ApplicationMeters exports it ({@code code} null: every code). */
    private static double metric(KafkaStreams streams, String name, String code) {
        double total = 0;
        for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            MetricName n = e.getKey();
            if (n.group().equals(TaskSensors.GROUP) && n.name().equals(name)
                    && (code == null || code.equals(n.tags().get("code")))) {
                total += ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return total;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, ObjectNode event) throws Exception {
        String key = event.get("tenant_id").asText() + "/" + event.get("session_id").asText();
        producer.send(new ProducerRecord<>(topic, bytes(key), JSON.writeValueAsBytes(event)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
