package dev.baton.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import dev.baton.avro.HandoffReceipt;
import dev.baton.avro.HandoffResult;

class SnapshotReceiptsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SHA = "ab".repeat(32);
    /** The cases the Python and Node kits' receipt tests check too: all three kits send the same JSON. */
    private static final Path SHARED_CASES = Paths.get("..", "examples", "consumers", "testdata", "receipts.json");

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

    @Test
    void shouldSendTheReceiptsThePythonAndNodeKitsSendForTheSameInput() throws Exception {
        JsonNode cases = JSON.readTree(Files.readString(SHARED_CASES));
        assertThat(cases.size()).isPositive();
        for (JsonNode c : cases) {
            JsonNode snapshot = c.get("snapshot");
            HandoffReceipt started = SnapshotReceipts.acknowledge(snapshot,
                    c.get("receiver_model").isNull() ? null : c.get("receiver_model").asText(),
                    c.get("budget_tokens").isNull() ? null : c.get("budget_tokens").asLong(),
                    Instant.parse(c.get("started_at").asText()),
                    c.path("dialect").isTextual() ? c.get("dialect").asText() : null);
            HandoffReceipt ended = SnapshotReceipts.reportOutcome(started,
                    HandoffResult.valueOf(c.get("outcome").asText()), c.get("tokens_spent").asLong());
            assertThat(SnapshotReceipts.key(snapshot)).isEqualTo(c.get("key").asText());
            assertThat(SnapshotReceipts.toJson(started)).isEqualTo(c.get("started").asText());
            assertThat(SnapshotReceipts.toJson(ended)).isEqualTo(c.get("ended").asText());
        }
    }
}
