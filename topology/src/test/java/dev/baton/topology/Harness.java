package dev.baton.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.avro.SessionEvent;
import dev.baton.avro.TenantPolicy;
import dev.baton.config.BatonConfig;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.egress.ContextSnapshotReader;
import dev.baton.engine.model.SessionKey;
import dev.baton.processor.LatencyRecorder;
import dev.baton.processor.TaskSensors;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.MockSchemaRegistry;
import dev.baton.serde.SchemaRegistries;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/** A {@link TopologyTestDriver} around {@link BatonTopology#buildTopology}, with helpers for JSON session events. */
final class Harness implements AutoCloseable {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final ObjectMapper JSON = new ObjectMapper();

    final BatonConfig config;
    final TopologyTestDriver driver;
    final TestInputTopic<byte[], byte[]> events;
    final TestInputTopic<byte[], byte[]> policies;
    final TestOutputTopic<byte[], byte[]> snapshots;
    final TestOutputTopic<byte[], byte[]> deadLetters;
    /** Receipts in and outcomes out: null unless baton.topic.handoff-receipts is set. */
    final TestInputTopic<byte[], byte[]> receipts;
    final TestOutputTopic<byte[], byte[]> outcomes;
    private static final AtomicInteger SCOPES = new AtomicInteger();
    private final Path stateDir;
    private final String registryScope;
    private final MockSchemaRegistry registry;
    private final ConfluentAvroCodec<SessionEvent> eventCodec;
    private final ConfluentAvroCodec<TenantPolicy> policyCodec;
    private final ContextSnapshotReader snapshotReader;
    private int eventCounter;

    Harness() {
        this(Map.of());
    }

    Harness(Map<String, String> overrides) {
        this(overrides, UnaryOperator.identity());
    }

    /**
     * @param overrides settings over the test defaults (JSON format; {@code baton.format=avro} gets a fresh
     *                  {@code mock://} registry scope of its own)
     * @param customize changes the real codecs (e.g. to inject a failure)
     */
    Harness(Map<String, String> overrides, UnaryOperator<BatonCodecs> customize) {
        this(overrides, customize, LatencyRecorder.NONE);
    }

    /** @param latency the recorder the processors find in the Streams configuration ({@link LatencyRecorder#CONFIG}) */
    Harness(Map<String, String> overrides, LatencyRecorder latency) {
        this(overrides, UnaryOperator.identity(), latency);
    }

    private Harness(Map<String, String> overrides, UnaryOperator<BatonCodecs> customize, LatencyRecorder latency) {
        try {
            stateDir = Files.createTempDirectory("baton-topology-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> settings = new HashMap<>();
        settings.put(BatonConfig.FORMAT, "json");
        settings.put("replication.factor", "1");
        settings.put("application.id", "baton-test");
        settings.put("state.dir", stateDir.toString());
        settings.putAll(overrides);
        registryScope = "baton-topology-test-" + SCOPES.incrementAndGet();
        if ("avro".equals(settings.get(BatonConfig.FORMAT))) {
            settings.put(BatonConfig.SCHEMA_REGISTRY_URL, SchemaRegistries.MOCK_PREFIX + registryScope);
        }
        config = BatonConfig.of(settings);
        String format = config.format().name().toLowerCase(Locale.ROOT);
        registry = config.format() == BatonConfig.Format.AVRO ? MockSchemaRegistry.forScope(registryScope) : null;
        eventCodec = registry == null ? null : new ConfluentAvroCodec<>(registry, SessionEvent.class);
        policyCodec = registry == null ? null : new ConfluentAvroCodec<>(registry, TenantPolicy.class);
        snapshotReader = ContextSnapshotReader.forFormat(format, registry);
        Properties props = BatonTopology.streamsProperties(config);
        props.put(LatencyRecorder.CONFIG, latency);
        BatonCodecs codecs = customize.apply(BatonCodecs.forConfig(config));
        driver = new TopologyTestDriver(BatonTopology.buildTopology(config, codecs), props, T0);
        ByteArraySerializer ser = new ByteArraySerializer();
        ByteArrayDeserializer de = new ByteArrayDeserializer();
        events = driver.createInputTopic(config.sessionEventsTopic(), ser, ser, T0, Duration.ZERO);
        policies = driver.createInputTopic(config.tenantPoliciesTopic().orElseThrow(), ser, ser);
        snapshots = driver.createOutputTopic(config.contextSnapshotsTopic(), de, de);
        deadLetters = driver.createOutputTopic(config.deadLettersTopic(), de, de);
        receipts = config.handoffReceiptsTopic().map(t -> driver.createInputTopic(t, ser, ser)).orElse(null);
        outcomes = receipts == null ? null : driver.createOutputTopic(config.handoffOutcomesTopic(), de, de);
    }

    // ---- input ----------------------------------------------------------------------------------------------------

    /** A session event's JSON envelope; add exactly one payload. */
    ObjectNode event(String tenant, String session) {
        ObjectNode o = JSON.createObjectNode();
        o.put("event_id", "e" + (++eventCounter));
        o.put("tenant_id", tenant);
        o.put("session_id", session);
        o.put("occurred_at", T0.plusSeconds(eventCounter).toString());
        return o;
    }

    ObjectNode turn(String tenant, String session, long seq, String agent, String role, String text) {
        ObjectNode o = event(tenant, session);
        ObjectNode t = o.putObject("turn");
        t.put("seq", seq);
        t.put("agent", agent);
        t.put("role", role);
        t.put("text", text);
        return o;
    }

    ObjectNode handoff(String tenant, String session, String handoffId, String from, String to, Long asOfSeq) {
        ObjectNode o = event(tenant, session);
        ObjectNode h = o.putObject("handoff");
        h.put("handoff_id", handoffId);
        if (from != null) h.put("from_agent", from);
        h.put("to_agent", to);
        h.put("target", "LOCAL");
        if (asOfSeq != null) h.put("as_of_seq", asOfSeq);
        return o;
    }

    ObjectNode closed(String tenant, String session) {
        ObjectNode o = event(tenant, session);
        o.putObject("closed").put("reason", "done");
        return o;
    }

    /** Sends an event keyed by its own tenant/session, in the configured format. */
    void send(ObjectNode event) {
        String key = SessionKey.format(event.get("tenant_id").asText(), event.get("session_id").asText());
        sendRaw(key.getBytes(StandardCharsets.UTF_8), encode(event));
    }

    /** The value bytes of a JSON session event in the configured format. */
    byte[] encode(ObjectNode event) {
        if (eventCodec == null) return event.toString().getBytes(StandardCharsets.UTF_8);
        return eventCodec.serialize(config.sessionEventsTopic(), AvroJson.read(event.toString(), SessionEvent.class));
    }

    /** Sends an event keyed by its own tenant/session with the record timestamp {@code timestampMs}. */
    void sendAt(ObjectNode event, long timestampMs) {
        String key = SessionKey.format(event.get("tenant_id").asText(), event.get("session_id").asText());
        events.pipeInput(key.getBytes(StandardCharsets.UTF_8), encode(event), timestampMs);
    }

    void send(String key, String value) {
        sendRaw(key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    void sendRaw(byte[] key, byte[] value) {
        events.pipeInput(key, value);
    }

    /** The backfill's end-of-input signal for one session. */
    void settle(String sessionKey) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(SessionContextProcessor.CONTROL_HEADER, SessionContextProcessor.SETTLE.getBytes(StandardCharsets.UTF_8));
        events.pipeInput(new TestRecord<>(sessionKey.getBytes(StandardCharsets.UTF_8), new byte[0], headers,
                T0));
    }

    void policy(String tenant, String json) {
        byte[] value = json == null ? null : policyCodec == null ? json.getBytes(StandardCharsets.UTF_8)
                : policyCodec.serialize(config.tenantPoliciesTopic().orElseThrow(),
                AvroJson.read(json, TenantPolicy.class));
        policies.pipeInput(tenant.getBytes(StandardCharsets.UTF_8), value);
    }

    void advance(Duration d) {
        driver.advanceWallClockTime(d);
    }

    // ---- output ---------------------------------------------------------------------------------------------------

    /** A snapshot read back: its record key and the JSON of the value. */
    record Out(String key, JsonNode value) {
        String handoffId() {
            return value.get("handoff_id").asText();
        }

        long asOfSeq() {
            return value.get("as_of_seq").asLong();
        }

        long turnCount() {
            return value.get("turn_count").asLong();
        }

        List<String> truncationKinds() {
            List<String> kinds = new ArrayList<>();
            value.path("truncations").forEach(t -> kinds.add(t.get("kind").asText()));
            return kinds;
        }
    }

    List<Out> readSnapshots() {
        List<Out> out = new ArrayList<>();
        for (KeyValue<byte[], byte[]> kv : snapshots.readKeyValuesToList()) {
            try {
                String json = AvroJson.writeString(snapshotReader.read(kv.value));
                out.add(new Out(new String(kv.key, StandardCharsets.UTF_8), JSON.readTree(json)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** A dead letter read back: bytes and the five contract headers. */
    record DeadLetterOut(byte[] key, byte[] value, Map<String, String> headers) {
        String code() {
            return headers.get(DeadLetterHeaders.CODE);
        }
    }

    List<DeadLetterOut> readDeadLetters() {
        List<DeadLetterOut> out = new ArrayList<>();
        for (TestRecord<byte[], byte[]> r : deadLetters.readRecordsToList()) {
            Map<String, String> headers = new HashMap<>();
            for (Header h : r.headers()) headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
            out.add(new DeadLetterOut(r.key(), r.value(), headers));
        }
        return out;
    }

    KeyValueStore<String, byte[]> sessionStore() {
        return driver.getKeyValueStore(SessionContextProcessor.SESSION_STORE);
    }

    KeyValueStore<String, Long> timerStore() {
        return driver.getKeyValueStore(SessionContextProcessor.TIMER_STORE);
    }

    /** Sum over tasks of a Baton metric, optionally restricted to one tag value. */
    double metric(String name, String tag, String tagValue) {
        double sum = 0;
        for (Map.Entry<MetricName, ? extends Metric> e : driver.metrics().entrySet()) {
            MetricName n = e.getKey();
            if (!n.group().equals(TaskSensors.GROUP) || !n.name().equals(name)) continue;
            if (tag != null && !tagValue.equals(n.tags().get(tag))) continue;
            sum += ((Number) e.getValue().metricValue()).doubleValue();
        }
        return sum;
    }

    double metric(String name) {
        return metric(name, null, null);
    }

    @Override
    public void close() {
        driver.close();
        MockSchemaRegistry.dropScope(registryScope);
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp directory
        }
    }
}
