package dev.baton.it;

import static dev.baton.it.EngineRendering.bytes;
import static dev.baton.it.EngineRendering.key;
import static dev.baton.it.EngineRendering.renderDirectly;
import static dev.baton.it.EngineRendering.withoutAudit;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;

import kafka.server.BrokerServer;

/**
 * A broker bounce in a three-broker cluster (replication factor 3, min.insync.replicas 2) in the middle of the stream,
 * against a real {@code baton run} (its own JVM) with its default settings — so its changelog topics are created
 * with {@code replication.factor} 3 and {@code min.insync.replicas} 2 (checked). The broker stopped is the one that leads the transaction state
 * partition, i.e. the transaction coordinator of Baton's exactly-once producer; it stops without a controlled
 * shutdown ({@code controlled.shutdown.enable=false}: its leaderships are not handed over first, the controller
 * fences it when its heartbeats stop), events keep coming while it is down, and it is started again.
 *
 * <p>Expected: the snapshots read with read_committed are exactly those the engine renders from the same events (a
 * fault-free run), each hand-off once, nothing dead-lettered, the service never stops. Times are printed, not
 * asserted (only liveness bounds are).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class BrokerBounceIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker(3, Map.of("controlled.shutdown.enable", "false"));

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String APP = "baton-bounce";
    private static final String IN = "bounce.session-events";
    private static final String OUT = "bounce.context-snapshots";
    private static final String DLQ = "bounce.dead-letters";
    private static final int SESSIONS = 24;

    @TempDir
    Path dir;

    @Test
    void shouldProduceTheFaultFreeSnapshotsExactlyOnceAcrossABrokerBounce() throws Exception {
        kafka.kafka().createTopics(4, IN);
        kafka.kafka().createTopics(4, Map.of("max.message.bytes", "8388608"), OUT, DLQ);
        HandoffCorpus corpus = new HandoffCorpus("acme");
        Map<String, byte[]> actual = new LinkedHashMap<>();
        Map<String, Long> arrivals = new LinkedHashMap<>();
        Map<String, String> env = BatonRunProcess.topics(APP, IN, OUT, DLQ, "");
        env.put("BATON_NUM_STANDBY_REPLICAS", "0"); // replication.factor is left at Baton's default (3); checked below

        try (BatonRunProcess baton = BatonRunProcess.start(dir, "baton", kafka.bootstrapServers(),
                List.of("--format", "json"), env);
                Admin admin = kafka.kafka().admin();
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null));
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("bounce-reader"))) {
            baton.awaitReady(Duration.ofSeconds(120));
            consumer.subscribe(List.of(OUT));

            sendRound(producer, corpus, 1, 0, SESSIONS);
            await(consumer, actual, arrivals, SESSIONS, Duration.ofSeconds(90), baton);
            checkInternalTopicsAreReplicated(admin);

            // the transaction coordinator's broker (leader of __transaction_state-0) goes away mid-round
            int victim = leaderOf(admin, "__transaction_state");
            BrokerServer broker = kafka.kafka().cluster().brokers().get(victim);
            sendRound(producer, corpus, 2, 0, SESSIONS / 2);
            producer.flush();
            broker.shutdown();
            long stoppedAt = System.nanoTime();
            sendRound(producer, corpus, 2, SESSIONS / 2, SESSIONS);
            // round 3 entirely while the broker is down
            sendRound(producer, corpus, 3, 0, SESSIONS);
            producer.flush();
            await(consumer, actual, arrivals, 3 * SESSIONS, Duration.ofSeconds(120), baton);
            double downSnapshots = (latest(arrivals, corpus, 3) - stoppedAt) / 1e9;
            assertThat(baton.isAlive()).isTrue();

            broker.startup();
            long restartedAt = System.nanoTime();
            double fullIsr = awaitFullIsr(admin, Set.of(IN, OUT, DLQ, "__transaction_state", "__consumer_offsets"),
                    Duration.ofSeconds(90)) ;
            sendRound(producer, corpus, 4, 0, SESSIONS);
            producer.flush();
            await(consumer, actual, arrivals, 4 * SESSIONS, Duration.ofSeconds(90), baton);
            // a little longer: a duplicate would show up now
            long quiet = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < quiet) poll(consumer, actual, arrivals);
            double afterReturn = (latest(arrivals, corpus, 4) - restartedAt) / 1e9;

            System.out.printf("broker bounce (broker %d of 3, the transaction coordinator): %d events, %d snapshots; "
                            + "rounds 2-3 complete %.1f s after the broker stopped; after its return the ISR was "
                            + "full again in %.1f s and round 4 complete in %.1f s%n", victim, corpus.lines().size(),
                    actual.size(), downSnapshots, fullIsr, afterReturn);
            assertThat(baton.isAlive()).as(baton.log()).isTrue();
            assertThat(kafka.positionsIn(DLQ, "bounce-dlq-reader", Duration.ofMinutes(1))).as("nothing dead-lettered").isEmpty();
        }

        Map<String, byte[]> expected = renderDirectly(corpus.lines());
        assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            // the application adds the input range (provenance) and the content hash; the rest is the engine's
            assertThat(withoutAudit(actual.get(e.getKey()))).as(e.getKey()).isEqualTo(withoutAudit(e.getValue()));
        }
    }

    /** Baton's internal topics (changelogs) have 3 replicas and min.insync.replicas 2, from its default config. */
    private static void checkInternalTopicsAreReplicated(Admin admin) throws Exception {
        List<String> internal = admin.listTopics().names().get().stream().filter(t -> t.startsWith(APP + "-")).toList();
        assertThat(internal).as("Baton's internal topics").isNotEmpty().anyMatch(t -> t.endsWith("-changelog"));
        for (TopicDescription d : admin.describeTopics(internal).allTopicNames().get().values()) {
            for (TopicPartitionInfo p : d.partitions()) {
                assertThat(p.replicas()).as("replicas of %s-%d", d.name(), p.partition()).hasSize(3);
            }
            ConfigEntry minIsr = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, d.name())))
                    .all().get().values().iterator().next().get("min.insync.replicas");
            assertThat(minIsr.value()).as("min.insync.replicas of %s", d.name()).isEqualTo("2");
            // set on the topic by Baton (topic.min.insync.replicas), not inherited from this cluster's broker default
            assertThat(minIsr.source()).as("where min.insync.replicas of %s comes from", d.name())
                    .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
    }

    private static int leaderOf(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0).leader().id();
    }

    /** Seconds until every partition of {@code topics} has all its replicas in sync. */
    private static double awaitFullIsr(Admin admin, Set<String> topics, Duration timeout) throws Exception {
        long start = System.nanoTime();
        Awaitility.await("a full ISR").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
            boolean full = true;
            for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get().values()) {
                for (TopicPartitionInfo p : d.partitions()) {
                    full &= p.isr().size() == p.replicas().size();
                }
            }
            return full;
        });
        return (System.nanoTime() - start) / 1e9;
    }

    private static void sendRound(KafkaProducer<byte[], byte[]> producer, HandoffCorpus corpus, int round, int from,
            int to) {
        for (int s = from; s < to; s++) {
            for (String line : corpus.round(s, round)) {
                producer.send(new ProducerRecord<>(IN, bytes(key(line)), bytes(line)));
            }
        }
    }

    private static long latest(Map<String, Long> arrivals, HandoffCorpus corpus, int round) {
        long last = 0;
        for (int s = 0; s < SESSIONS; s++) last = Math.max(last, arrivals.get(corpus.snapshotId(s, round)));
        return last;
    }

    private static void await(KafkaConsumer<byte[], byte[]> consumer, Map<String, byte[]> actual,
            Map<String, Long> arrivals, int expected, Duration timeout, BatonRunProcess baton) throws IOException {
        Awaitility.await(expected + " snapshots").atMost(timeout).pollInSameThread().pollInterval(Duration.ZERO)
                .failFast("baton run stopped", baton::assertAlive).until(() -> {
                    poll(consumer, actual, arrivals);
                    return actual.size() >= expected;
                });
        assertThat(actual).as("snapshots within %s; log:\n%s", timeout, baton.log()).hasSize(expected);
    }

    private static void poll(KafkaConsumer<byte[], byte[]> consumer, Map<String, byte[]> actual,
            Map<String, Long> arrivals) throws IOException {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            String id = JSON.readTree(r.value()).get("snapshot_id").asText();
            assertThat(actual.put(id, r.value())).as("one snapshot per hand-off: %s", id).isNull();
            arrivals.put(id, System.nanoTime());
        }
    }
}
