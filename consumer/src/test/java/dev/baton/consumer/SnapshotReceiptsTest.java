package dev.baton.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import dev.baton.avro.HandoffReceipt;
import dev.baton.avro.HandoffResult;

class SnapshotReceiptsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SHA = "ab".repeat(32);

    private static JsonNode snapshot() throws Exception {
        return JSON.readTree("{\"snapshot_id\":\"acme/s1/h1\",\"tenant_id\":\"acme\",\"session_id\":\"s1\","
                + "\"content_sha256\":\"" + SHA + "\"}");
    }

    @Test
    void shouldAcknowledgeWithTheSnapshotsIdAndHashKeyedByItsSession() throws Exception {
        Instant start = Instant.parse("2026-12-03T10:00:00Z");
        HandoffReceipt r = SnapshotReceipts.acknowledge(snapshot(), "claude-opus", 200_000L, start);
        assertThat(SnapshotReceipts.key(snapshot())).isEqualTo("acme/s1");
        assertThat(r.getSnapshotId()).isEqualTo("acme/s1/h1");
        assertThat(r.getContentSha256()).isEqualTo(SHA);
        assertThat(r.getOutcome()).isNull();
        assertThat(SnapshotReceipts.toJson(r)).isEqualTo("{\"snapshot_id\":\"acme/s1/h1\",\"content_sha256\":\""
                + SHA + "\",\"receiver_model\":\"claude-opus\",\"budget_tokens\":200000,"
                + "\"started_at\":\"2026-12-03T10:00:00Z\"}");
    }

    @Test
    void shouldReportTheOutcomeOfTheSameStart() throws Exception {
        HandoffReceipt started = SnapshotReceipts.acknowledge(snapshot(), null, null, Instant.EPOCH);
        HandoffReceipt ended = SnapshotReceipts.reportOutcome(started, HandoffResult.HANDED_BACK, 1234);
        assertThat(ended.getSnapshotId()).isEqualTo(started.getSnapshotId());
        assertThat(ended.getStartedAt()).isEqualTo(started.getStartedAt());
        assertThat(JSON.readTree(SnapshotReceipts.toJson(ended)).get("outcome").asText()).isEqualTo("HANDED_BACK");
        assertThat(started.getOutcome()).as("the start receipt is left as it was").isNull();
        assertThatThrownBy(() -> SnapshotReceipts.reportOutcome(started, HandoffResult.FAILED, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
