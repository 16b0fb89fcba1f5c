package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;


/**
 * docs/contract.md, "Bounded records", on a real broker, through {@code baton run} as a real process with its default
 * limits: a session of 10 turns × 50,000 CJK characters (a snapshot over 1 MiB, which stopped the service for good
 * before), an input record of 1 MiB − 1 bytes, results made of astral characters only and a session of many tiny
 * messages all give their snapshots, the service stays ready, nothing is dead-lettered, and a session after them still
 * flows. A start against an output topic whose max.message.bytes is below the limit fails with a clear message.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class NoPoisonPillIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MIB = 1024 * 1024;
    private final ContractEvents events = new ContractEvents("2026-12-01T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void shouldKeepRunningAndEmitEverySnapshotWhateverTheSessionsHold() throws Exception {
        String in = "np.session-events", out = "np.context-snapshots", dlq = "np.dead-letters";
        // the input topic takes a record of 1 MiB - 1 (Kafka's default limit is 1 MiB + 12 bytes per batch)
        kafka.kafka().createTopics(2, Map.of("max.message.bytes", Integer.toString(2 * MIB)), in);
        kafka.kafka().createTopics(2, Map.of("max.message.bytes", Integer.toString(8 * MIB)), out, dlq);
        try (BatonRunProcess baton = start("np", in, out, dlq)) {
            baton.awaitReady(Duration.ofSeconds(90));
            Map<String, String> expected = new HashMap<>(); // hand-off id -> session
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps())) {
                // 1. ten turns of 50,000 CJK characters (a snapshot of about 1.2 MB)
                send(producer, in, events.turn("acme", "cjk", 0, "user", "USER", "翻译".repeat(25_000)));
                for (int i = 1; i < 10; i++) {
                    send(producer, in, events.turn("acme", "cjk", i, i % 2 == 0 ? "qwen" : "claude", "ASSISTANT",
                            "漢字".repeat(25_000)));
                }
                send(producer, in, events.handoff("acme", "cjk", "h-cjk", "claude"));
                expected.put("h-cjk", "cjk");
                // 2. an input record of exactly 1 MiB - 1 bytes
                // (key and value together, as the input limit counts a record: baton.policy.max_record_bytes = 1 MiB)
                ObjectNode big = events.turn("acme", "big", 0, "user", "USER", "");
                int envelope = JSON.writeValueAsBytes(big).length + "acme/big".length();
                ((ObjectNode) big.get("turn")).put("text", "b".repeat(MIB - 1 - envelope));
                assertThat(JSON.writeValueAsBytes(big).length + "acme/big".length()).isEqualTo(MIB - 1);
                send(producer, in, big);
                send(producer, in, events.handoff("acme", "big", "h-big", "claude"));
                expected.put("h-big", "big");
                // 3. tool results of astral characters only (Jackson writes each as two escapes: 12 bytes, 720 KB a turn)
                send(producer, in, events.turn("acme", "astral", 0, "user", "USER", "\uD83D\uDE00"));
                for (int i = 1; i <= 6; i++) {
                    ObjectNode t = events.turn("acme", "astral", i, "qwen", "ASSISTANT", "");
                    ArrayNode trail = ((ObjectNode) t.get("turn")).putArray("trail");
                    trail.addObject().put("call_id", "c" + i).put("tool", "read").put("result", "\uD83D\uDE00".repeat(60_000))
                            .put("status", "OK").putObject("arguments");
                    send(producer, in, t);
                }
                send(producer, in, events.handoff("acme", "astral", "h-astral", "claude"));
                expected.put("h-astral", "astral");
                // 4. a session of many tiny messages from agents with the longest names
                send(producer, in, events.turn("acme", "tiny", 0, "user", "USER", "go"));
                for (int i = 1; i < 3_000; i++) {
                    send(producer, in, events.turn("acme", "tiny", i, (i % 2 == 0 ? "a" : "b").repeat(64), "ASSISTANT", "."));
                }
                send(producer, in, events.handoff("acme", "tiny", "h-tiny", "claude"));
                expected.put("h-tiny", "tiny");
                // 5. an ordinary session after all of them
                send(producer, in, events.turn("acme", "after", 0, "user", "USER", "still there?"));
                send(producer, in, events.handoff("acme", "after", "h-after", "claude"));
                expected.put("h-after", "after");
                producer.flush();
            }

            Map<String, Integer> sizes = snapshotSizes(out, expected.size(), Duration.ofMinutes(4), baton);
            assertThat(sizes).containsOnlyKeys(expected.keySet());
            assertThat(sizes.get("h-cjk")).as("the 10 × 50,000 CJK snapshot is over 1 MiB").isGreaterThan(MIB);
            assertThat(sizes.values()).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(8 * MIB));
            assertThat(deadLetters(dlq)).as("dead letters").isEmpty();
            assertThat(baton.isAlive()).isTrue();
            assertThat(baton.ready()).isTrue();
        }
    }

    @Test
    void shouldRefuseToStartAgainstAnOutputTopicThatCannotTakeTheLimit() throws Exception {
        String in = "small.session-events", out = "small.context-snapshots", dlq = "small.dead-letters";
        kafka.kafka().createTopics(1, in, dlq);
        kafka.kafka().createTopics(1, Map.of("max.message.bytes", Integer.toString(MIB)), out);
        try (BatonRunProcess baton = start("small", in, out, dlq)) {
            assertThat(baton.waitFor(Duration.ofSeconds(90))).as("exits").isTrue();
            String output = baton.log();
            assertThat(baton.exitValue()).as(output).isEqualTo(1);
            assertThat(output).contains("small.context-snapshots has max.message.bytes=" + MIB)
                    .contains("baton.max-output-bytes=" + 8 * MIB);
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    private BatonRunProcess start(String app, String in, String out, String dlq) throws IOException {
        Map<String, String> env = BatonRunProcess.topics("baton-" + app, in, out, dlq, "");
        env.put("BATON_REPLICATION_FACTOR", "1");
        env.put("BATON_NUM_STANDBY_REPLICAS", "0");
        return BatonRunProcess.start(dir, app, "1g", kafka.bootstrapServers(), List.of("--format", "json"), env);
    }

    private java.util.Properties producerProps() {
        java.util.Properties p = kafka.producerProps(null);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(2 * MIB));
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return p;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, ObjectNode event) throws IOException {
        String key = event.get("tenant_id").asText() + "/" + event.get("session_id").asText();
        producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), JSON.writeValueAsBytes(event)));
    }

    private Map<String, Integer> snapshotSizes(String topic, int expected, Duration timeout, BatonRunProcess baton)
            throws IOException {
        Map<String, Integer> sizes = new HashMap<>();
        java.util.Properties props = kafka.consumerProps("np-reader-" + topic);
        props.put("max.partition.fetch.bytes", Integer.toString(16 * MIB));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            Awaitility.await(expected + " snapshots on " + topic).atMost(timeout).pollInSameThread()
                    .pollInterval(Duration.ZERO).failFast("baton run stopped", baton::assertAlive).until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                            JsonNode s = JSON.readTree(r.value());
                            assertThat(sizes.put(s.get("handoff_id").asText(), r.value().length)).as("exactly once")
                                    .isNull();
                        }
                        return sizes.size() >= expected;
                    });
        }
        assertThat(sizes).as("snapshots seen; log:\n%s", baton.logTail()).hasSize(expected);
        return sizes;
    }

    /** code: message of every dead letter on {@code topic}. */
    private List<String> deadLetters(String topic) {
        List<String> out = new ArrayList<>();
        kafka.readCommitted(topic, "np-count-" + topic, Duration.ofMinutes(1),
                r -> out.add(header(r, "baton.error.code") + ": " + header(r, "baton.error.message")));
        return out;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
