package dev.baton.it;

import static dev.baton.it.EngineRendering.bytes;
import static dev.baton.it.EngineRendering.key;
import static dev.baton.it.EngineRendering.renderDirectly;
import static dev.baton.it.EngineRendering.sample;
import static dev.baton.it.EngineRendering.withoutAudit;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.config.BatonConfig;
import dev.baton.avro.ContextSnapshot;
import dev.baton.egress.SnapshotHash;
import dev.baton.serde.AvroJson;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.replay.embedded.EmbeddedKafka;
import dev.baton.topology.BatonTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real application on a real broker, exactly-once: the bundled sample sessions go in, snapshots are read back
 * with a plain read-committed consumer, and each must be byte for byte what the engine renders directly from the
 * same events (decoded with the same decoder, applied in input order, settled at the end of the input).
 */
class SnapshotsMatchTheEngineIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldEmitExactlyTheSnapshotsTheEngineRendersDirectly() throws Exception {
        List<String> lines = sample();
        Path stateDir = Files.createTempDirectory("baton-it-state");
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", kafka.bootstrapServers());
        settings.put(BatonConfig.FORMAT, "json");
        settings.put("application.id", "baton-it-match");
        settings.put("replication.factor", "1");
        settings.put("num.standby.replicas", "0");
        settings.put("state.dir", stateDir.toString());
        settings.put(BatonConfig.PUNCTUATE_WALL_CLOCK, "false");
        BatonConfig config = BatonConfig.of(settings);
        kafka.createTopics(4, config.sessionEventsTopic(), config.contextSnapshotsTopic(), config.deadLettersTopic());
        kafka.createTopics(1, config.tenantPoliciesTopic().orElseThrow());

        Map<String, byte[]> expected = renderDirectly(lines);
        assertThat(expected).hasSizeGreaterThan(3);

        LinkedHashSet<String> sessions = new LinkedHashSet<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null))) {
            for (String line : lines) {
                String key = key(line);
                sessions.add(key);
                producer.send(new ProducerRecord<>(config.sessionEventsTopic(), bytes(key), bytes(line)));
            }
            for (String key : sessions) {
                ProducerRecord<byte[], byte[]> settle = new ProducerRecord<>(config.sessionEventsTopic(), bytes(key), new byte[0]);
                settle.headers().add(SessionContextProcessor.CONTROL_HEADER, bytes(SessionContextProcessor.SETTLE));
                producer.send(settle);
            }
        }

        Map<String, byte[]> actual = new LinkedHashMap<>();
        try (KafkaStreams streams = new KafkaStreams(BatonTopology.buildTopology(config),
                BatonTopology.streamsProperties(config));
                  KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("it-snapshot-reader"))) {
            streams.start();
            consumer.subscribe(List.of(config.contextSnapshotsTopic()));
            Awaitility.await("every snapshot").atMost(Duration.ofSeconds(90)).pollInSameThread()
                    .pollInterval(Duration.ZERO).until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                            String id = JSON.readTree(r.value()).get("snapshot_id").asText();
                            assertThat(actual.put(id, r.value())).as("one snapshot per hand-off: %s", id).isNull();
                        }
                        return actual.size() >= expected.size();
                    });
            streams.close(Duration.ofSeconds(30));
        } finally {
            EmbeddedKafka.deleteRecursively(stateDir);
        }

        assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            // the application adds what the engine alone cannot know: the input range (offsets on the real topic), and
            // with it the content hash; everything else is byte for byte what the engine renders
            JsonNode got = JSON.readTree(actual.get(e.getKey()));
            assertThat(got.get("provenance").get("topic").asText()).isEqualTo(config.sessionEventsTopic());
            assertThat(got.get("provenance").get("first_offset").asLong())
                    .isLessThanOrEqualTo(got.get("provenance").get("last_offset").asLong());
            assertThat(got.get("content_sha256").asText()).isEqualTo(SnapshotHash.of(
                    AvroJson.read(actual.get(e.getKey()), ContextSnapshot.class)));
            assertThat(withoutAudit(actual.get(e.getKey()))).as(e.getKey()).isEqualTo(withoutAudit(e.getValue()));
        }
    }
}
