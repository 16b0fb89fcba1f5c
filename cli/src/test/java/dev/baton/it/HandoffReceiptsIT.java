package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.avro.HandoffReceipt;
import dev.baton.avro.HandoffResult;
import dev.baton.config.BatonConfig;
import dev.baton.consumer.SnapshotReceipts;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.replay.embedded.EmbeddedKafka;
import dev.baton.topology.BatonTopology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hand-off receipts on a real broker: Baton runs with receipts on; a consumer reads each snapshot, acknowledges it and
 * reports its outcome with the Java consumer kit ({@link SnapshotReceipts}); Baton writes the joined outcomes, shows
 * the outcome in the session's next brick, and dead-letters a receipt for a snapshot the consumer changed.
 */
class HandoffReceiptsIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RECEIPTS = "baton.handoff-receipts";

    @Test
    void shouldJoinTheReceiptsTheConsumerKitSendsWithTheSnapshotsBatonWrote() throws Exception {
        Path stateDir = Files.createTempDirectory("baton-it-receipts");
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", kafka.bootstrapServers());
        settings.put(BatonConfig.FORMAT, "json");
        settings.put("application.id", "baton-it-receipts");
        settings.put("replication.factor", "1");
        settings.put("num.standby.replicas", "0");
        settings.put("state.dir", stateDir.toString());
        settings.put(BatonConfig.TENANT_POLICIES_TOPIC, "");
        settings.put(BatonConfig.HANDOFF_RECEIPTS_TOPIC, RECEIPTS);
        settings.put(BatonConfig.METRICS_TENANTS, "acme");
        BatonConfig config = BatonConfig.of(settings);
        // receipts co-partitioned with the events: the same partition count and the producer's default partitioner
        kafka.createTopics(3, config.sessionEventsTopic(), RECEIPTS, config.contextSnapshotsTopic(),
                config.deadLettersTopic(), config.handoffOutcomesTopic());

        try (KafkaStreams streams = new KafkaStreams(BatonTopology.buildTopology(config),
                BatonTopology.streamsProperties(config));
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null));
             KafkaConsumer<byte[], byte[]> snapshots = reader("it-receipts-snapshots", config.contextSnapshotsTopic());
             KafkaConsumer<byte[], byte[]> outcomes = reader("it-receipts-outcomes", config.handoffOutcomesTopic());
             KafkaConsumer<byte[], byte[]> deadLetters = reader("it-receipts-dl", config.deadLettersTopic())) {
            streams.start();
            for (String s : List.of("s1", "s2")) {
                send(producer, config.sessionEventsTopic(), "acme/" + s, event(s, 1,
                        "\"turn\":{\"seq\":0,\"agent\":\"user\",\"role\":\"USER\",\"text\":\"fix the build\"}"));
                send(producer, config.sessionEventsTopic(), "acme/" + s, event(s, 2,
                        "\"turn\":{\"seq\":1,\"agent\":\"planner\",\"role\":\"ASSISTANT\",\"text\":\"tried\"}"));
                send(producer, config.sessionEventsTopic(), "acme/" + s, event(s, 3,
                        "\"handoff\":{\"handoff_id\":\"h1\",\"from_agent\":\"planner\",\"to_agent\":\"coder\","
                                + "\"target\":\"LOCAL\"}"));
            }
            List<JsonNode> first = read(snapshots, 2, r -> true);

            // The consumer hands each snapshot to its receiver and acknowledges it; s1's receiver hands back, s2's
            // consumer changed the snapshot before using it (its hash differs).
            for (JsonNode snapshot : first) {
                HandoffReceipt started = SnapshotReceipts.acknowledge(snapshot, "claude-opus", 200_000L,
                        Instant.parse("2026-12-03T10:00:00Z"));
                if (snapshot.get("session_id").asText().equals("s2")) {
                    started.setContentSha256("0".repeat(64));
                }
                send(producer, RECEIPTS, SnapshotReceipts.key(snapshot), SnapshotReceipts.toJson(started));
                if (snapshot.get("session_id").asText().equals("s1")) {
                    send(producer, RECEIPTS, SnapshotReceipts.key(snapshot), SnapshotReceipts.toJson(
                            SnapshotReceipts.reportOutcome(started, HandoffResult.HANDED_BACK, 4_321)));
                }
            }
            List<JsonNode> joined = read(outcomes, 2, r -> true);
            assertThat(joined).allSatisfy(o -> assertThat(o.get("snapshot_id").asText()).isEqualTo("acme/s1/h1"));
            assertThat(joined.get(0).get("outcome").isNull()).isTrue();
            assertThat(joined.get(1).get("outcome").asText()).isEqualTo("HANDED_BACK");
            assertThat(joined.get(1).get("tokens_spent").asLong()).isEqualTo(4_321L);
            String sha1 = first.stream().filter(s -> s.get("session_id").asText().equals("s1")).findFirst()
                    .orElseThrow().get("content_sha256").asText();
            assertThat(joined.get(1).get("content_sha256").asText()).isEqualTo(sha1);

            List<String> codes = new ArrayList<>();
            Awaitility.await("the refused receipt").atMost(Duration.ofSeconds(60)).pollInSameThread()
                    .pollInterval(Duration.ZERO).until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : deadLetters.poll(Duration.ofMillis(200))) {
                            codes.add(new String(r.headers().lastHeader(DeadLetterHeaders.CODE).value(),
                                    StandardCharsets.UTF_8));
                        }
                        return !codes.isEmpty();
                    });
            assertThat(codes).containsExactly("RECEIPT_HASH_MISMATCH");

            // the next escalation of s1 says how the previous one ended
            send(producer, config.sessionEventsTopic(), "acme/s1", event("s1", 4,
                    "\"handoff\":{\"handoff_id\":\"h2\",\"from_agent\":\"planner\",\"to_agent\":\"coder\","
                            + "\"target\":\"LOCAL\"}"));
            JsonNode next = read(snapshots, 1, r -> true).get(0);
            assertThat(next.get("brick").asText().lines().toList())
                    .contains("[previous hand-off: escalated to claude-opus at seq 1: failed — handed back]");
            streams.close(Duration.ofSeconds(30));
        } finally {
            EmbeddedKafka.deleteRecursively(stateDir);
        }
    }

    private static String event(String session, int n, String payload) {
        return "{\"event_id\":\"" + session + "-e" + n + "\",\"tenant_id\":\"acme\",\"session_id\":\"" + session
                + "\",\"occurred_at\":\"2026-12-03T09:00:0" + n + "Z\"," + payload + "}";
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key, String value) {
        producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8)));
        producer.flush();
    }

    private static KafkaConsumer<byte[], byte[]> reader(String group, String topic) {
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(kafka.consumerProps(group));
        c.subscribe(List.of(topic));
        return c;
    }

    private static List<JsonNode> read(KafkaConsumer<byte[], byte[]> consumer, int n, Predicate<JsonNode> keep) {
        List<JsonNode> out = new ArrayList<>();
        Awaitility.await(n + " records").atMost(Duration.ofSeconds(120)).pollInSameThread()
                .pollInterval(Duration.ZERO).until(() -> {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        JsonNode v = JSON.readTree(r.value());
                        if (keep.test(v)) out.add(v);
                    }
                    return out.size() >= n;
                });
        return out;
    }
}
