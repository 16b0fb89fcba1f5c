package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.config.BatonConfig;
import dev.baton.topology.BatonCodecs;
import dev.baton.topology.BatonTopology;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Baton's real topology ({@link BatonTopology#buildTopology}) in a {@link TopologyTestDriver}, JSON format: session
 * event lines in, the JSON-form snapshot lines out, exactly as the snapshot topic carries them.
 */
final class TopologyRenderer implements AutoCloseable {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final Path stateDir;
    private final TopologyTestDriver driver;
    private final TestInputTopic<byte[], byte[]> events;
    private final TestInputTopic<byte[], byte[]> policies;
    private final TestOutputTopic<byte[], byte[]> snapshots;
    private final TestOutputTopic<byte[], byte[]> deadLetters;

    TopologyRenderer() throws IOException {
        stateDir = Files.createTempDirectory("baton-receivers-corpus");
        BatonConfig config = BatonConfig.of(Map.of(BatonConfig.FORMAT, "json", "replication.factor", "1",
                "application.id", "baton-receivers-corpus", "state.dir", stateDir.toString()));
        driver = new TopologyTestDriver(BatonTopology.buildTopology(config, BatonCodecs.forConfig(config)),
                BatonTopology.streamsProperties(config), T0);
        ByteArraySerializer ser = new ByteArraySerializer();
        ByteArrayDeserializer de = new ByteArrayDeserializer();
        events = driver.createInputTopic(config.sessionEventsTopic(), ser, ser, T0, Duration.ZERO);
        policies = driver.createInputTopic(config.tenantPoliciesTopic().orElseThrow(), ser, ser);
        snapshots = driver.createOutputTopic(config.contextSnapshotsTopic(), de, de);
        deadLetters = driver.createOutputTopic(config.deadLettersTopic(), de, de);
    }

    /** A tenant policy (JSON form of TenantPolicy). */
    void policy(String tenant, String json) {
        policies.pipeInput(bytes(tenant), bytes(json));
    }

    /** Sends the lines in order, keyed by their own tenant/session; returns the snapshot lines they produced. */
    List<String> render(List<String> lines) {
        for (String line : lines) {
            JsonNode e;
            try {
                e = SessionBuilder.JSON.readTree(line);
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            String key = e.get("tenant_id").asText() + "/" + e.get("session_id").asText();
            events.pipeInput(bytes(key), bytes(line));
        }
        List<String> out = new ArrayList<>();
        for (KeyValue<byte[], byte[]> kv : snapshots.readKeyValuesToList()) {
            out.add(new String(kv.value, StandardCharsets.UTF_8));
        }
        return out;
    }

    /** Dead letters so far, as "code: message" (none expected: every converted line is valid input). */
    List<String> deadLetters() {
        List<String> out = new ArrayList<>();
        deadLetters.readRecordsToList().forEach(r -> {
            StringBuilder sb = new StringBuilder();
            r.headers().forEach(h -> sb.append(h.key()).append('=').append(new String(h.value(), StandardCharsets.UTF_8)).append(' '));
            out.add(sb.toString());
        });
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        driver.close();
        try (Stream<Path> paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
