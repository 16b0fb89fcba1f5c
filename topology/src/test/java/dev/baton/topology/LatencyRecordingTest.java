package dev.baton.topology;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.config.BatonConfig;
import dev.baton.engine.model.SessionKey;
import dev.baton.processor.LatencyRecorder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the processors report to the {@link LatencyRecorder} (the service's latency histograms): which hand-offs and
 * receipts are timed, from which timestamp, under which tenant. The end is the real wall clock, so the record
 * timestamps are set a known span before it and only a lower bound (and a generous upper one) is asserted.
 */
class LatencyRecordingTest {
    private static final String T = "acme";
    private static final String S = "s1";
    private static final long AGO = 2_000;

    /** One report: kind, raw tenant id, value (ms; ns for render). */
    record Report(String kind, String tenant, long value) {
    }

    static final class Recording implements LatencyRecorder {
        final List<Report> reports = new CopyOnWriteArrayList<>();

        @Override
        public void handoffToSnapshot(String tenantId, long millis) {
            reports.add(new Report("handoff", tenantId, millis));
        }

        @Override
        public void render(String tenantId, long nanos) {
            reports.add(new Report("render", tenantId, nanos));
        }

        @Override
        public void receiptToOutcome(String tenantId, long millis) {
            reports.add(new Report("receipt", tenantId, millis));
        }

        List<Report> of(String kind) {
            return reports.stream().filter(r -> r.kind().equals(kind)).toList();
        }
    }

    @Test
    void shouldTimeAHandoffReadyOnArrivalFromItsRecordTimestampAndItsRender() {
        Recording latency = new Recording();
        try (Harness h = new Harness(Map.of(), latency)) {
            h.send(h.turn(T, S, 0, "user", "USER", "fix the build"));
            long sent = System.currentTimeMillis() - AGO;
            h.sendAt(h.handoff(T, S, "h1", "user", "coder", null), sent);
            assertThat(h.readSnapshots()).hasSize(1);

            assertThat(latency.of("handoff")).singleElement().satisfies(r -> {
                assertThat(r.tenant()).isEqualTo(T);
                assertThat(r.value()).isBetween(AGO, AGO + 60_000);
            });
            assertThat(latency.of("render")).singleElement().satisfies(r -> {
                assertThat(r.tenant()).isEqualTo(T);
                assertThat(r.value()).isPositive();
            });
            assertThat(latency.of("receipt")).isEmpty();
        }
    }

    @Test
    void shouldNotTimeAHandoffThatWaitedForItsTurns() {
        Recording latency = new Recording();
        try (Harness h = new Harness(Map.of(), latency)) {
            h.send(h.handoff(T, S, "h1", "user", "coder", 1L));
            h.send(h.turn(T, S, 0, "user", "USER", "fix the build"));
            assertThat(h.readSnapshots()).isEmpty();
            h.send(h.turn(T, S, 1, "planner", "ASSISTANT", "looked at it"));
            assertThat(h.readSnapshots()).hasSize(1);

            // its record's timestamp is not kept while it waits: rendered, but not timed end to end
            assertThat(latency.of("handoff")).isEmpty();
            assertThat(latency.of("render")).hasSize(1);
        }
    }

    @Test
    void shouldTimeAReceiptToItsOutcomeFromTheReceiptRecordTimestamp() {
        Recording latency = new Recording();
        try (Harness h = new Harness(Map.of(BatonConfig.HANDOFF_RECEIPTS_TOPIC, "baton.handoff-receipts"), latency)) {
            h.send(h.turn(T, S, 0, "user", "USER", "fix the build"));
            h.send(h.handoff(T, S, "h1", "user", "coder", null));
            String sha = h.readSnapshots().get(0).value().get("content_sha256").asText();
            ObjectNode r = Harness.JSON.createObjectNode();
            r.put("snapshot_id", SessionKey.of(T, S).snapshotId("h1"));
            r.put("content_sha256", sha);
            r.put("receiver_model", "claude-opus");
            r.put("budget_tokens", 200_000L);
            r.put("started_at", Harness.T0.plusSeconds(30).toString());
            r.put("outcome", "RESOLVED");
            r.put("tokens_spent", 10L);

            h.receipts.pipeInput(SessionKey.format(T, S).getBytes(StandardCharsets.UTF_8),
                    r.toString().getBytes(StandardCharsets.UTF_8), System.currentTimeMillis() - AGO);

            assertThat(h.readDeadLetters()).isEmpty();
            assertThat(h.outcomes.readValuesToList()).hasSize(1);
            assertThat(latency.of("receipt")).singleElement().satisfies(rep -> {
                assertThat(rep.tenant()).isEqualTo(T);
                assertThat(rep.value()).isBetween(AGO, AGO + 60_000);
            });
        }
    }
}
