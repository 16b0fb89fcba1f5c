package dev.baton.egress;

import dev.baton.avro.ContextSnapshot;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.snapshot.Framing;
import dev.baton.engine.snapshot.FramingKind;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Parity;
import dev.baton.engine.snapshot.Retention;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Stats;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.serde.ConfluentWireFormat;
import dev.baton.serde.MockSchemaRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SnapshotEncoderTest {
    private static final String TOPIC = "baton.context-snapshots";
    private final String scope = "snapshot-test-" + System.nanoTime();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    static Snapshot snapshot() {
        return new Snapshot("t1/s1/h1", "t1", "s1", "h1", null, "qwen", Target.LOCAL, 7, 8,
                Instant.parse("2026-01-31T12:00:02.500Z").toEpochMilli(),
                new Framing(FramingKind.CONTINUITY, "You are qwen."),
                "Session t1/s1 — 8 turns",
                List.of(Message.user("fix it ✓"),
                        new Message("assistant", null, "", List.of(new ToolCall("c1", "grep", "{\"z\":1.0,\"a\":1e5}")), null),
                        new Message("tool", null, "hit", List.of(), "c1"),
                        Message.assistant("claude", "done")),
                new Retention(List.of(6L, 4L), List.of(2L), List.of(), 0, 120),
                List.of(new Truncation(TruncationKind.TURNS_MISSING, 1L, 1L, 1, "(turn missing — 1 turn, seq 1)"),
                        new Truncation(TruncationKind.SEGMENT_TRIMMED, null, null, 300, "… (300 characters cut)")),
                new Stats(40, 23, 16), new Parity("claude", 5, 5));
    }

    @Test
    void shouldRoundTripThroughAvroInTheWireFormat() {
        byte[] value = SnapshotEncoder.avro(registry).encode(TOPIC, snapshot());

        assertThat(ConfluentWireFormat.schemaId(value)).isEqualTo(registry.versions(TOPIC + "-value").get(0));
        assertThat(ContextSnapshotReader.avro(registry).readSnapshot(value)).isEqualTo(snapshot());
    }

    @Test
    void shouldCarryTheStablePrefixThroughAvroAndJsonAndCoverItByTheContentHash() {
        Snapshot s = snapshot();
        Stats t = s.stats();
        Snapshot withPrefix = new Snapshot(s.snapshotId(), s.tenantId(), s.sessionId(), s.handoffId(), s.fromAgent(),
                s.toAgent(), s.target(), s.asOfSeq(), s.turnCount(), s.occurredAtMillis(), s.framing(), s.brick(),
                s.messages(), s.retention(), s.truncations(),
                new Stats(t.messageChars(), t.brickChars(), t.estimatedTokens(), null, 1_024L), s.parity());
        byte[] value = SnapshotEncoder.avro(registry).encode(TOPIC, withPrefix);
        assertThat(ContextSnapshotReader.avro(registry).readSnapshot(value)).isEqualTo(withPrefix);
        String line = SnapshotEncoder.toJsonLine(withPrefix);
        assertThat(line).contains("\"token_counts\":null,\"stable_prefix_chars\":1024}");
        assertThat(SnapshotEncoder.toAvro(withPrefix).getContentSha256())
                .isNotEqualTo(SnapshotEncoder.toAvro(s).getContentSha256());
    }

    @Test
    void shouldWriteAStableJsonLineInSchemaOrder() {
        String line = SnapshotEncoder.toJsonLine(snapshot());

        assertThat(line).isEqualTo(SnapshotEncoder.toJsonLine(snapshot()));
        assertThat(line).doesNotContain("\n");
        assertThat(line).startsWith("{\"snapshot_id\":\"t1/s1/h1\",\"tenant_id\":\"t1\",\"session_id\":\"s1\",\"handoff_id\":\"h1\","
                + "\"from_agent\":null,\"to_agent\":\"qwen\",\"target\":\"LOCAL\",\"as_of_seq\":7,\"turn_count\":8,"
                + "\"occurred_at\":\"2026-01-31T12:00:02.500Z\",\"framing\":{\"kind\":\"CONTINUITY\",\"system_prompt\":\"You are qwen.\"},");
        assertThat(line).contains("\"tool_calls\":[{\"call_id\":\"c1\",\"tool\":\"grep\",\"arguments\":{\"z\":1.0,\"a\":1e5}}]");
        assertThat(line).contains("\"content\":\"fix it ✓\"");
        assertThat(line).contains("\"stats\":{\"message_chars\":40,\"brick_chars\":23,\"estimated_tokens\":16,"
                + "\"token_counts\":null,\"stable_prefix_chars\":null},"
                + "\"parity\":{\"reference_agent\":\"claude\",\"reference_items\":5,\"covered_items\":5},"
                + "\"synthetic\":null,\"provenance\":null,\"content_sha256\":\"");
        assertThat(line).matches(".*\"content_sha256\":\"[0-9a-f]{64}\",\"call_ledger\":null}");
        assertThat(new String(SnapshotEncoder.json().encode(TOPIC, snapshot()), StandardCharsets.UTF_8)).isEqualTo(line);
    }

    @Test
    void shouldReadTheJsonLineBack() {
        byte[] line = SnapshotEncoder.json().encode(TOPIC, snapshot());

        ContextSnapshot record = ContextSnapshotReader.json().read(line);

        assertThat(record.getMessages().get(1).getToolCalls().get(0).getArguments()).isEqualTo("{\"z\":1.0,\"a\":1e5}");
        assertThat(ContextSnapshotReader.toSnapshot(record)).isEqualTo(snapshot());
    }
}
