package dev.baton.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.baton.config.BatonConfig;
import dev.baton.consumer.SnapshotTracing;
import dev.baton.processor.HandoffTracing;
import dev.baton.topology.BatonTopology;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One trace across the hand-off: a producer's {@code traceparent} on a hand-off event → Baton's
 * {@code baton.handoff} span (the topology under {@link TopologyTestDriver}, the SDK autoconfigured by
 * {@link ServiceTracing} as {@code baton run} does) → the snapshot record's {@code traceparent} header → the Java
 * kit's agent-call span ({@link SnapshotTracing}); every span exported over OTLP/HTTP to a loopback receiver and
 * decoded there.
 */
class TraceAcrossHandoffTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PRODUCER_SPAN = "00f067aa0ba902b7";

    @TempDir
    Path stateDir;
    private OtlpLoopbackReceiver receiver;
    private int events;

    @BeforeEach
    void startReceiver() throws Exception {
        receiver = new OtlpLoopbackReceiver();
    }

    @AfterEach
    void stopReceiver() {
        receiver.close();
    }

    @Test
    void shouldContinueTheProducersTraceThroughBatonIntoTheAgentCall() {
        List<TestRecord<byte[], byte[]>> out;
        try (ServiceTracing tracing = tracing(); Run run = new Run(tracing.handoffs())) {
            run.send(turn("acme", "s1", 0, "user", "USER", "fix the build"), null);
            run.send(handoff("acme", "s1", "h1", null), "00-" + TRACE + "-" + PRODUCER_SPAN + "-01");
            out = run.snapshots.readRecordsToList();
        }
        assertThat(out).hasSize(1);
        String header = header(out.get(0).headers(), "traceparent");
        Span baton = await().atMost(Duration.ofSeconds(10)).until(() -> receiver.named("baton.handoff"),
                s -> s.size() == 1).get(0).span();

        assertThat(hex(baton.getTraceId())).isEqualTo(TRACE);
        assertThat(hex(baton.getParentSpanId())).isEqualTo(PRODUCER_SPAN);
        assertThat(baton.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CONSUMER);
        assertThat(header).isEqualTo("00-" + TRACE + "-" + hex(baton.getSpanId()) + "-01");
        Map<String, String> attributes = attributes(baton);
        assertThat(attributes).containsEntry("baton.tenant.id", "acme").containsEntry("baton.session.id", "s1")
                .containsEntry("baton.handoff.id", "h1").containsEntry("baton.snapshot.id", "acme/s1/h1")
                .containsEntry("baton.handoff.to_agent", "coder").containsEntry("baton.handoff.target", "LOCAL")
                .containsEntry("baton.handoff.outcome", "ready").containsKey("baton.snapshot.message_chars")
                .containsKey("baton.snapshot.brick_chars").containsKey("baton.snapshot.estimated_tokens");
        // ids, counts and kinds only: no turn text anywhere
        assertThat(baton.toString()).doesNotContain("fix the build");

        // the kit continues it: the agent call's span is a child of Baton's
        Span call = kitCall(out.get(0));
        assertThat(hex(call.getTraceId())).isEqualTo(TRACE);
        assertThat(call.getParentSpanId()).isEqualTo(baton.getSpanId());
        assertThat(call.getName()).isEqualTo("chat qwen3-8b");
        assertThat(call.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
        assertThat(attributes(call)).containsEntry("gen_ai.operation.name", "chat")
                .containsEntry("gen_ai.request.model", "qwen3-8b").containsEntry("gen_ai.provider.name", "openai")
                .containsEntry("gen_ai.conversation.id", "s1").containsEntry("baton.snapshot.id", "acme/s1/h1");
    }

    @Test
    void shouldStartANewTraceForAHandoffWithoutTraceparent() {
        List<TestRecord<byte[], byte[]>> out;
        try (ServiceTracing tracing = tracing(); Run run = new Run(tracing.handoffs())) {
            run.send(turn("acme", "s2", 0, "user", "USER", "hello"), null);
            run.send(handoff("acme", "s2", "h1", null), null);
            out = run.snapshots.readRecordsToList();
        }
        Span baton = await().atMost(Duration.ofSeconds(10)).until(() -> receiver.named("baton.handoff"),
                s -> s.size() == 1).get(0).span();
        assertThat(baton.getParentSpanId().isEmpty()).isTrue();
        // a new trace: the SDK may also set the random-trace-id flag (W3C Trace Context level 2)
        assertThat(header(out.get(0).headers(), "traceparent"))
                .startsWith("00-" + hex(baton.getTraceId()) + "-" + hex(baton.getSpanId()) + "-");
    }

    @Test
    void shouldEndTheSpanOfAParkedHandoffAndReleaseItsSnapshotInTheSameTrace() {
        List<TestRecord<byte[], byte[]>> beforeRelease;
        List<TestRecord<byte[], byte[]>> out;
        try (ServiceTracing tracing = tracing(); Run run = new Run(tracing.handoffs())) {
            run.send(turn("acme", "s3", 0, "user", "USER", "hello"), null);
            run.send(handoff("acme", "s3", "h1", 1L), "00-" + TRACE + "-" + PRODUCER_SPAN + "-01");
            beforeRelease = run.snapshots.readRecordsToList();
            run.send(turn("acme", "s3", 1, "planner", "ASSISTANT", "hi"), null);
            out = run.snapshots.readRecordsToList();
        }
        assertThat(beforeRelease).isEmpty();
        assertThat(out).hasSize(1);
        List<OtlpLoopbackReceiver.Received> spans = await().atMost(Duration.ofSeconds(10))
                .until(receiver::spans, s -> s.size() == 2);
        Span parked = receiver.named("baton.handoff").get(0).span();
        Span release = receiver.named("baton.handoff.release").get(0).span();
        assertThat(spans).hasSize(2);
        assertThat(attributes(parked)).containsEntry("baton.handoff.outcome", "parked")
                .doesNotContainKey("baton.snapshot.id");
        assertThat(hex(parked.getParentSpanId())).isEqualTo(PRODUCER_SPAN);
        assertThat(hex(release.getTraceId())).isEqualTo(TRACE);
        assertThat(release.getParentSpanId()).isEqualTo(parked.getSpanId());
        assertThat(attributes(release)).containsEntry("baton.snapshot.id", "acme/s3/h1");
        assertThat(header(out.get(0).headers(), "traceparent")).isEqualTo("00-" + TRACE + "-"
                + hex(release.getSpanId()) + "-01");
    }

    @Test
    void shouldWriteTheSameSnapshotBytesWithoutAnyHeaderWhenTracingIsOff() {
        String traceparent = "00-" + TRACE + "-" + PRODUCER_SPAN + "-01";
        List<TestRecord<byte[], byte[]>> traced;
        List<TestRecord<byte[], byte[]>> untraced;
        try (ServiceTracing tracing = tracing(); Run run = new Run(tracing.handoffs())) {
            run.send(turn("acme", "s4", 0, "user", "USER", "hello"), null);
            run.send(handoff("acme", "s4", "h1", null), traceparent);
            traced = run.snapshots.readRecordsToList();
        }
        events = 0;
        try (Run run = new Run(ServiceTracing.start(Map.of("otel.sdk.disabled", "true")).handoffs())) {
            run.send(turn("acme", "s4", 0, "user", "USER", "hello"), null);
            run.send(handoff("acme", "s4", "h1", null), traceparent);
            untraced = run.snapshots.readRecordsToList();
        }
        assertThat(untraced.get(0).value()).isEqualTo(traced.get(0).value());
        assertThat(untraced.get(0).headers().toArray()).isEmpty();
        assertThat(traced.get(0).headers().lastHeader("traceparent")).isNotNull();
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** Tracing as {@code baton run} sets it up, exporting to the loopback receiver. */
    private ServiceTracing tracing() {
        ServiceTracing tracing = ServiceTracing.start(Map.of("otel.traces.exporter", "otlp",
                "otel.exporter.otlp.traces.endpoint", receiver.tracesEndpoint(), "otel.bsp.schedule.delay", "10"));
        assertThat(tracing.on()).isTrue();
        return tracing;
    }

    /** The consumer side: the Java kit's span of the agent call, from the snapshot record, exported and received. */
    private Span kitCall(TestRecord<byte[], byte[]> snapshotRecord) {
        OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder().setEndpoint(receiver.tracesEndpoint()).build();
        try (OpenTelemetrySdk kit = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter))
                        .setResource(Resource.getDefault().merge(Resource.builder()
                                .put("service.name", "receiving-agent").build())).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build()) {
            JsonNode snapshot = JSON.readTree(snapshotRecord.value());
            var span = SnapshotTracing.startAgentCall(kit, SnapshotTracing.parent(kit, snapshotRecord.headers()),
                    snapshot, "chat", "qwen3-8b", "openai");
            span.end();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return await().atMost(Duration.ofSeconds(10)).until(() -> receiver.spans().stream()
                .filter(s -> "receiving-agent".equals(s.service())).toList(), s -> s.size() == 1).get(0).span();
    }

    private static String header(Headers headers, String key) {
        Header h = headers.lastHeader(key);
        assertThat(h).as("header " + key).isNotNull();
        return new String(h.value(), StandardCharsets.UTF_8);
    }

    private static Map<String, String> attributes(Span span) {
        Map<String, String> out = new java.util.TreeMap<>();
        for (KeyValue kv : span.getAttributesList()) {
            var v = kv.getValue();
            out.put(kv.getKey(), v.hasIntValue() ? Long.toString(v.getIntValue()) : v.getStringValue());
        }
        return out;
    }

    private static String hex(ByteString bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }

    private ObjectNode event(String tenant, String session) {
        ObjectNode o = JSON.createObjectNode();
        o.put("event_id", "e" + (++events));
        o.put("tenant_id", tenant);
        o.put("session_id", session);
        o.put("occurred_at", T0.plusSeconds(events).toString());
        return o;
    }

    private ObjectNode turn(String tenant, String session, long seq, String agent, String role, String text) {
        ObjectNode o = event(tenant, session);
        ObjectNode t = o.putObject("turn");
        t.put("seq", seq);
        t.put("agent", agent);
        t.put("role", role);
        t.put("text", text);
        return o;
    }

    private ObjectNode handoff(String tenant, String session, String id, Long asOfSeq) {
        ObjectNode o = event(tenant, session);
        ObjectNode h = o.putObject("handoff");
        h.put("handoff_id", id);
        h.put("from_agent", "planner");
        h.put("to_agent", "coder");
        h.put("target", "LOCAL");
        if (asOfSeq != null) h.put("as_of_seq", asOfSeq);
        return o;
    }

    /** Baton's topology (JSON format) under {@link TopologyTestDriver}, traced by {@code tracing}. */
    private final class Run implements AutoCloseable {
        final TopologyTestDriver driver;
        final TestInputTopic<byte[], byte[]> input;
        final TestOutputTopic<byte[], byte[]> snapshots;

        Run(HandoffTracing tracing) {
            BatonConfig config = BatonConfig.of(Map.of(BatonConfig.FORMAT, "json", "replication.factor", "1",
                    "application.id", "baton-trace-test", "state.dir", stateDir.resolve("s" + events).toString()));
            driver = new TopologyTestDriver(BatonTopology.buildTopology(config, tracing),
                    BatonTopology.streamsProperties(config), T0);
            ByteArraySerializer ser = new ByteArraySerializer();
            input = driver.createInputTopic(config.sessionEventsTopic(), ser, ser, T0, Duration.ZERO);
            snapshots = driver.createOutputTopic(config.contextSnapshotsTopic(), new ByteArrayDeserializer(),
                    new ByteArrayDeserializer());
        }

        void send(ObjectNode event, String traceparent) {
            String key = event.get("tenant_id").asText() + "/" + event.get("session_id").asText();
            RecordHeaders headers = new RecordHeaders();
            if (traceparent != null) headers.add("traceparent", traceparent.getBytes(StandardCharsets.UTF_8));
            try {
                input.pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), JSON.writeValueAsBytes(event),
                        headers, T0));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            driver.close();
        }
    }
}
