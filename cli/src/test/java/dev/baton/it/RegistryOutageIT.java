package dev.baton.it;

import static dev.baton.it.EngineRendering.bytes;
import static dev.baton.it.EngineRendering.key;
import static dev.baton.it.EngineRendering.renderDirectly;
import static dev.baton.it.EngineRendering.withoutAudit;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.avro.SessionEvent;
import dev.baton.avro.ShippedSchemas;
import dev.baton.egress.ContextSnapshotReader;
import dev.baton.egress.SnapshotEncoder;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentWireFormat;
import dev.baton.serde.HttpSchemaRegistryClient;

/**
 * A schema registry outage in the middle of the stream, against a real {@code baton run} (its own JVM, Avro input
 * and output through the real registry). The registry is frozen with SIGSTOP — its port still accepts connections,
 * nothing is answered, its schemas are kept: a hung registry — for longer than the registry client's 30 s request
 * timeout. Events sent during the outage are written with a schema id that was registered before the outage but
 * that Baton has never seen, so Baton cannot decode them without the registry (its caches cannot hide the outage).
 * Then the registry is resumed (SIGCONT) and more events follow.
 *
 * <p>Expected: the service never stops (a transient failure pauses processing, see StreamThreadFailures), nothing is
 * dead-lettered, and the snapshots read with read_committed are exactly those the engine renders from the same
 * events, each hand-off once. The pause (time from SIGCONT to the last delayed snapshot) is printed, not asserted:
 * only a liveness bound is.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RegistryOutageIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    static final RealSchemaRegistry registry = new RealSchemaRegistry();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String IN = "outage.session-events";
    private static final String OUT = "outage.context-snapshots";
    private static final String DLQ = "outage.dead-letters";
    private static final int SESSIONS = 16;
    /** Longer than the registry client's request timeout (30 s): requests time out, not only wait. */
    private static final Duration OUTAGE = Duration.ofSeconds(40);

    @TempDir
    Path dir;

    @Test
    void shouldPauseWhileTheRegistryIsUnreachableAndResumeWithoutLossDuplicatesOrDeadLetters() throws Exception {
        kafka.kafka().createTopics(4, IN);
        kafka.kafka().createTopics(4, Map.of("max.message.bytes", "8388608"), OUT, DLQ);
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(registry.url());
        SessionEventEncoder shipped = SessionEventEncoder.avro(client);
        HandoffCorpus corpus = new HandoffCorpus("acme");
        Map<String, byte[]> actual = new LinkedHashMap<>();
        ContextSnapshotReader reader = ContextSnapshotReader.avro(new HttpSchemaRegistryClient(registry.url()));
        Map<String, String> env = BatonRunProcess.topics("baton-outage", IN, OUT, DLQ, "");
        env.put("BATON_REPLICATION_FACTOR", "1");
        env.put("BATON_NUM_STANDBY_REPLICAS", "0");

        try (BatonRunProcess baton = BatonRunProcess.start(dir, "baton", kafka.bootstrapServers(),
                List.of("--format", "avro", "--schema-registry-url", registry.url()), env);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null));
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("outage-reader"))) {
            baton.awaitReady(Duration.ofSeconds(120));
            consumer.subscribe(List.of(OUT));

            // round 1, registry up: the shipped schema's id, which Baton learns (and caches) now
            for (int s = 0; s < SESSIONS; s++) {
                for (String line : corpus.round(s, 1)) send(producer, line, shipped.encode(IN, bytes(line)));
            }
            producer.flush();
            collect(consumer, reader, actual, SESSIONS, Duration.ofSeconds(90));

            // a second writer schema (the shipped one plus an optional field), registered before the outage and
            // first used by the events sent during it: Baton has to ask the registry for it
            int shippedId = client.register(IN + "-value", ShippedSchemas.of("SessionEvent"));
            Schema variant = withOptionalField(ShippedSchemas.of("SessionEvent"));
            int variantId = client.register(IN + "-value", variant);
            assertThat(variantId).isNotEqualTo(shippedId);
            String probe = corpus.lines().get(0); // not sent again: checks that the variant's bytes decode
            Decoded check = SessionEventDecoder.avro(new HttpSchemaRegistryClient(registry.url()), 1 << 20)
                    .decode(bytes(key(probe)), encodeWithVariant(probe, variant, variantId));
            assertThat(check.accepted()).as("%s %s", check.code(), check.message()).isTrue();

            registry.pause();
            long pausedAt = System.nanoTime();
            // round 2, registry hung: even sessions write with the new id, odd ones with the known one
            for (int s = 0; s < SESSIONS; s++) {
                for (String line : corpus.round(s, 2)) {
                    send(producer, line, s % 2 == 0 ? encodeWithVariant(line, variant, variantId)
                            : shipped.encode(IN, bytes(line)));
                }
            }
            producer.flush();
            int duringOutage = 0;
            while (System.nanoTime() - pausedAt < OUTAGE.toNanos()) {
                duringOutage += poll(consumer, reader, actual);
                assertThat(baton.isAlive()).as("baton run stopped during the registry outage:\n%s", baton.log()).isTrue();
            }
            boolean readyDuringOutage = baton.ready();
            registry.resume();
            long resumedAt = System.nanoTime();

            // round 3, registry back
            for (int s = 0; s < SESSIONS; s++) {
                for (String line : corpus.round(s, 3)) {
                    send(producer, line, s % 2 == 0 ? encodeWithVariant(line, variant, variantId)
                            : shipped.encode(IN, bytes(line)));
                }
            }
            producer.flush();
            Map<String, Long> arrivals = new LinkedHashMap<>();
            Awaitility.await("every snapshot").atMost(Duration.ofSeconds(120)).pollInSameThread()
                    .pollInterval(Duration.ZERO).failFast("baton run stopped", baton::assertAlive).until(() -> {
                        if (poll(consumer, reader, actual) > 0) arrivals.put("last", System.nanoTime());
                        return actual.size() >= 3 * SESSIONS;
                    });
            assertThat(actual).as("snapshots after the outage; log:\n%s", baton.log()).hasSize(3 * SESSIONS);
            // a little longer: a duplicate would show up now
            long quiet = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < quiet) poll(consumer, reader, actual);

            String failedThreads = baton.metrics().lines().filter(l -> l.startsWith("kafka_stream_failed_stream_threads_total"))
                    .findFirst().orElse("(no kafka_stream_failed_stream_threads_total in /metrics)");
            String log = baton.log();
            long retries = log.lines().filter(l -> l.contains("A dependency is unavailable")).count();
            double pause = (arrivals.getOrDefault("last", resumedAt) - resumedAt) / 1e9;
            System.out.printf("registry outage: %d events, %d snapshots (%d during the %d s outage), %d stream thread "
                            + "retries, every snapshot within %.1f s of the registry's return; ready during the "
                            + "outage: %s; %s%n", corpus.lines().size(), actual.size(), duringOutage, OUTAGE.toSeconds(),
                    retries, pause, readyDuringOutage, failedThreads);
            // the outage was seen (otherwise this test proves nothing) and survived
            assertThat(retries).as("the outage reached Baton:\n%s", log).isPositive();
            // the signal docs/operations.md tells operators to watch
            assertThat(failedThreads).doesNotEndWith(" 0.0")
                    .matches("kafka_stream_failed_stream_threads_total(\\{.*\\})? [0-9.]+");
            assertThat(baton.isAlive()).as(log).isTrue();
            assertThat(kafka.positionsIn(DLQ, "outage-dlq-reader", Duration.ofMinutes(1))).as("nothing dead-lettered for the outage").isEmpty();
            assertThat(pause).as("seconds from the registry's return to the last snapshot").isLessThan(90.0);
        }

        Map<String, byte[]> expected = renderDirectly(corpus.lines());
        assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            // the application adds the input range (provenance) and the content hash; the rest is the engine's
            assertThat(withoutAudit(actual.get(e.getKey()))).as(e.getKey()).isEqualTo(withoutAudit(e.getValue()));
        }
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String line, byte[] value) {
        producer.send(new ProducerRecord<>(IN, bytes(key(line)), value));
    }

    private static void collect(KafkaConsumer<byte[], byte[]> consumer, ContextSnapshotReader reader,
            Map<String, byte[]> actual, int expected, Duration timeout) throws IOException {
        Awaitility.await(expected + " snapshots").atMost(timeout).pollInSameThread().pollInterval(Duration.ZERO)
                .until(() -> {
                    poll(consumer, reader, actual);
                    return actual.size() >= expected;
                });
        assertThat(actual).as("snapshots within %s", timeout).hasSize(expected);
    }

    /** One poll; Avro snapshots read back and re-encoded as the JSON line the engine's rendering is compared with. */
    private static int poll(KafkaConsumer<byte[], byte[]> consumer, ContextSnapshotReader reader,
            Map<String, byte[]> actual) {
        int n = 0;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            var snapshot = reader.readSnapshot(r.value());
            byte[] json = SnapshotEncoder.json().encode(OUT, snapshot);
            assertThat(actual.put(snapshot.snapshotId(), json)).as("one snapshot per hand-off: %s", snapshot.snapshotId())
                    .isNull();
            n++;
        }
        return n;
    }

    /** The shipped SessionEvent schema with one more field, optional (a compatible producer-side change). */
    private static Schema withOptionalField(Schema shipped) throws IOException {
        ObjectNode tree = (ObjectNode) JSON.readTree(shipped.toString());
        ((ArrayNode) tree.get("fields")).addObject().put("name", "producer_note")
                .put("doc", "Added by a newer producer; Baton's reader schema does not have it.")
                .putNull("default").putArray("type").add("null").add("string");
        return new Schema.Parser().parse(tree.toString());
    }

    /** The line as a SessionEvent written with {@code variant} (its extra field null), in the Confluent wire format. */
    private static byte[] encodeWithVariant(String line, Schema variant, int variantId) throws IOException {
        SessionEvent event = AvroJson.read(line, SessionEvent.class);
        GenericData.Record record = new GenericData.Record(variant);
        for (Schema.Field f : SessionEvent.getClassSchema().getFields()) record.put(f.name(), event.get(f.pos()));
        record.put("producer_note", null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] header = new byte[ConfluentWireFormat.HEADER_SIZE];
        ConfluentWireFormat.writeHeader(header, variantId);
        out.writeBytes(header);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new SpecificDatumWriter<GenericData.Record>(variant, SpecificData.getForClass(SessionEvent.class))
                .write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
