package dev.baton.egress;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.HandoffOutcome;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.processor.InboundEvent;
import dev.baton.serde.MockSchemaRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** JSON lines in, through the decoder and the real engine, snapshots out in both formats. */
class DecodeRenderEncodeTest {
    private final String scope = "e2e-serde-test-" + System.nanoTime();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    private static final String[] LINES = {
            "{\"event_id\":\"e0\",\"tenant_id\":\"acme\",\"session_id\":\"s1\",\"occurred_at\":\"2026-01-31T12:00:00Z\","
                    + "\"turn\":{\"seq\":0,\"agent\":\"user\",\"role\":\"user\",\"text\":\"Find the bug ✓\"}}",
            "{\"event_id\":\"e1\",\"tenant_id\":\"acme\",\"session_id\":\"s1\",\"occurred_at\":\"2026-01-31T12:00:01Z\","
                    + "\"turn\":{\"seq\":1,\"agent\":\"qwen\",\"role\":\"assistant\",\"text\":\"Found it.\",\"trail\":[{\"call_id\":\"c1\","
                    + "\"tool\":\"grep\",\"arguments\":{ \"z\": 1.0, \"a\": 1e5 },\"result\":\"main.c:3\",\"status\":\"ok\"}]}}",
            "{\"event_id\":\"e2\",\"tenant_id\":\"acme\",\"session_id\":\"s1\",\"occurred_at\":\"2026-01-31T12:00:02Z\","
                    + "\"handoff\":{\"handoff_id\":\"h1\",\"from_agent\":\"qwen\",\"to_agent\":\"claude\",\"target\":\"local\"}}"
    };

    private List<Snapshot> run() {
        SessionEventDecoder decoder = SessionEventDecoder.json(SessionEventDecoder.DEFAULT_MAX_RECORD_BYTES);
        SessionState state = SessionState.empty();
        Policy policy = Policy.defaults();
        List<Snapshot> out = new ArrayList<>();
        for (String line : LINES) {
            Decoded d = decoder.decode("acme/s1".getBytes(StandardCharsets.UTF_8), line.getBytes(StandardCharsets.UTF_8));
            assertThat(d.accepted()).as(d.message()).isTrue();
            InboundEvent e = d.event();
            if (e.turn() != null) state.offerTurn(e.turn(), policy, 0L);
            if (e.handoff() != null) {
                HandoffOutcome outcome = state.offerHandoff(e.handoff(), e.occurredAtMillis(), policy, 0L);
                for (ReadyHandoff ready : outcome.ready()) {
                    out.add(ContextEngine.render(e.tenantId(), e.sessionId(), state, ready, policy));
                }
            }
        }
        return out;
    }

    @Test
    void shouldCarryDecodedEventsIntoSnapshotsThatRoundTrip() {
        List<Snapshot> snapshots = run();

        assertThat(snapshots).hasSize(1);
        Snapshot snapshot = snapshots.get(0);
        byte[] avro = SnapshotEncoder.avro(registry).encode("baton.context-snapshots", snapshot);
        String line = SnapshotEncoder.toJsonLine(snapshot);

        assertThat(ContextSnapshotReader.avro(registry).readSnapshot(avro)).isEqualTo(snapshot);
        assertThat(ContextSnapshotReader.json().readSnapshot(line.getBytes(StandardCharsets.UTF_8))).isEqualTo(snapshot);
        assertThat(line).startsWith("{\"snapshot_id\":\"acme/s1/h1\"").contains("\"occurred_at\":\"2026-01-31T12:00:02Z\"");
        assertThat(line).contains("grep({\\\"z\\\":1.0,\\\"a\\\":1e5})");
        assertThat(SnapshotEncoder.toJsonLine(run().get(0))).isEqualTo(line);
    }
}
