package dev.baton.it;

import static dev.baton.it.EngineRendering.bytes;
import static dev.baton.it.EngineRendering.key;
import static dev.baton.it.EngineRendering.renderDirectly;
import static dev.baton.it.EngineRendering.sample;
import static dev.baton.it.EngineRendering.withoutAudit;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.config.BatonConfig;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.replay.embedded.EmbeddedKafka;
import dev.baton.topology.BatonTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Restore from the changelogs: the first half of the bundled sample goes through one instance, which is then stopped
 * and its local state deleted; a second instance with an empty state directory restores every session (skeletons,
 * per-turn entries, remembered hand-off ids, timers) from the changelog topics and processes the second half. Every
 * snapshot of both halves must be byte for byte what the engine renders directly from all the events, and a
 * hand-off id sent again after the restart must still be recognised as a duplicate.
 */
class RestoreFromChangelogIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldRestoreEverySessionFromTheChangelogsAndGoOnAsIfNothingHappened() throws Exception {
        List<String> lines = sample();
        Path stateDir = Files.createTempDirectory("baton-it-state");
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", kafka.bootstrapServers());
        settings.put(BatonConfig.FORMAT, "json");
        settings.put("application.id", "baton-it-restore");
        settings.put("replication.factor", "1");
        settings.put("num.standby.replicas", "0");
        settings.put("state.dir", stateDir.toString());
        settings.put(BatonConfig.PUNCTUATE_WALL_CLOCK, "false");
        BatonConfig config = BatonConfig.of(settings);
        kafka.createTopics(4, config.sessionEventsTopic(), config.contextSnapshotsTopic(), config.deadLettersTopic());
        kafka.createTopics(1, config.tenantPoliciesTopic().orElseThrow());

        Map<String, byte[]> expected = renderDirectly(lines);
        assertThat(expected).hasSizeGreaterThan(3);

        int half = lines.size() / 2;
        LinkedHashSet<String> sessions = new LinkedHashSet<>();
        for (String line : lines) sessions.add(key(line));
        send(config, lines.subList(0, half), List.of());
        runUntilCommitted(config, stateDir);
        EmbeddedKafka.deleteRecursively(stateDir);
        assertThat(stateDir).doesNotExist();

        // the second half, a hand-off of the first half sent again (its id is remembered: no second snapshot), settles
        String again = lines.subList(0, half).stream().filter(l -> l.contains("\"handoff\"")).findFirst().orElseThrow();
        List<String> rest = new ArrayList<>(lines.subList(half, lines.size()));
        rest.add(again);
        send(config, rest, List.copyOf(sessions));

        Map<String, byte[]> actual = new LinkedHashMap<>();
        Path restored = Files.createTempDirectory("baton-it-restored");
        settings.put("state.dir", restored.toString());
        BatonConfig second = BatonConfig.of(settings);
        try (KafkaStreams streams = new KafkaStreams(BatonTopology.buildTopology(second),
                BatonTopology.streamsProperties(second));
                  KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("it-restore-reader"))) {
            streams.start();
            consumer.subscribe(List.of(config.contextSnapshotsTopic()));
            Awaitility.await("every snapshot").atMost(Duration.ofSeconds(120)).pollInSameThread()
                    .pollInterval(Duration.ZERO).until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                            String id = JSON.readTree(r.value()).get("snapshot_id").asText();
                            assertThat(actual.put(id, r.value())).as("one snapshot per hand-off: %s", id).isNull();
                        }
                        return actual.size() >= expected.size();
                    });
            // a little longer: a duplicate snapshot of the re-sent hand-off would show up now
            long quiet = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < quiet) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    String id = JSON.readTree(r.value()).get("snapshot_id").asText();
                    assertThat(actual.put(id, r.value())).as("one snapshot per hand-off: %s", id).isNull();
                }
            }
            streams.close(Duration.ofSeconds(30));
        } finally {
            EmbeddedKafka.deleteRecursively(restored);
        }

        assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            // the application adds the input range (provenance) and the content hash; the rest is the engine's rendering
            assertThat(withoutAudit(actual.get(e.getKey()))).as(e.getKey()).isEqualTo(withoutAudit(e.getValue()));
        }
    }

    private static void send(BatonConfig config, List<String> lines, List<String> settle) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null))) {
            for (String line : lines) {
                producer.send(new ProducerRecord<>(config.sessionEventsTopic(), bytes(key(line)), bytes(line)));
            }
            for (String key : settle) {
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(config.sessionEventsTopic(), bytes(key), new byte[0]);
                r.headers().add(SessionContextProcessor.CONTROL_HEADER, bytes(SessionContextProcessor.SETTLE));
                producer.send(r);
            }
        }
    }

    /** Runs the application until its committed offsets reach the end of the input, then closes it. */
    private static void runUntilCommitted(BatonConfig config, Path stateDir) throws Exception {
        try (KafkaStreams streams = new KafkaStreams(BatonTopology.buildTopology(config),
                BatonTopology.streamsProperties(config));
                  org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                          Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            streams.start();
            String topic = config.sessionEventsTopic();
            Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < 4; p++) {
                latest.put(new org.apache.kafka.common.TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
            }
            long end = 0;
            for (var e : admin.listOffsets(latest).all().get().values()) end += e.offset();
            long inputEnd = end;
            Awaitility.await("offsets committed to the end of the input").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(100)).until(() -> {
                        long done = 0;
                        for (var e : admin.listConsumerGroupOffsets(config.applicationId()).partitionsToOffsetAndMetadata()
                                .get().entrySet()) {
                            if (e.getKey().topic().equals(topic) && e.getValue() != null) done += e.getValue().offset();
                        }
                        return done >= inputEnd;
                    });
            streams.close(Duration.ofSeconds(30));
        }
    }
}
