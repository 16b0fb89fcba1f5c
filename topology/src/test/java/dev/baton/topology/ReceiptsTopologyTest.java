package dev.baton.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.avro.HandoffOutcome;
import dev.baton.avro.HandoffReceipt;
import dev.baton.config.BatonConfig;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.model.SessionKey;
import dev.baton.processor.HandoffReceiptProcessor;
import dev.baton.processor.MetricCatalogue;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.MockSchemaRegistry;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hand-off receipts joined with the snapshots Baton wrote (issue 24, part 2): match, hash mismatch, unknown snapshot,
 * late, duplicate, a receipt before its snapshot, across a restart, and the brick's previous-outcome line.
 */
class ReceiptsTopologyTest {
    private static final String T = "acme";
    private static final String S = "s1";
    private static final String RECEIPTS = "baton.handoff-receipts";
    private static final String ZERO_HASH = "0".repeat(64);

    private static Map<String, String> receiptsOn(String... more) {
        Map<String, String> m = new HashMap<>();
        m.put(BatonConfig.HANDOFF_RECEIPTS_TOPIC, RECEIPTS);
        m.put("baton.policy.receipt_timeout_millis", "60000");
        m.put(BatonConfig.METRICS_TENANTS, T);
        for (int i = 0; i + 1 < more.length; i += 2) m.put(more[i], more[i + 1]);
        return m;
    }

    /** Three turns and hand-off h1 to coder; returns the snapshot's JSON. */
    private static JsonNode escalate(Harness h, String handoffId) {
        h.send(h.turn(T, S, 0, "user", "USER", "fix the build"));
        h.send(h.turn(T, S, 1, "planner", "ASSISTANT", "looked at it"));
        h.send(h.handoff(T, S, handoffId, "planner", "coder", null));
        List<Harness.Out> out = h.readSnapshots();
        assertThat(out).hasSize(1);
        return out.get(0).value();
    }

    private static ObjectNode receipt(String handoffId, String sha, String outcome, Long spent) {
        ObjectNode r = Harness.JSON.createObjectNode();
        r.put("snapshot_id", SessionKey.of(T, S).snapshotId(handoffId));
        r.put("content_sha256", sha);
        r.put("receiver_model", "claude-opus");
        r.put("budget_tokens", 200_000L);
        r.put("started_at", Harness.T0.plusSeconds(30).toString());
        if (outcome != null) r.put("outcome", outcome);
        if (spent != null) r.put("tokens_spent", spent);
        return r;
    }

    private static void send(Harness h, ObjectNode receipt) {
        send(h, SessionKey.format(T, S), receipt);
    }

    private static void send(Harness h, String key, ObjectNode receipt) {
        h.receipts.pipeInput(key.getBytes(StandardCharsets.UTF_8), receipt.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static List<JsonNode> outcomes(Harness h) {
        List<JsonNode> out = new ArrayList<>();
        for (KeyValue<byte[], byte[]> kv : h.outcomes.readKeyValuesToList()) {
            assertThat(new String(kv.key, StandardCharsets.UTF_8)).isEqualTo(SessionKey.format(T, S));
            try {
                out.add(Harness.JSON.readTree(kv.value));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    @Test
    void shouldJoinMatchingReceiptsIntoOutcomesAndCountTheTenantsCosts() {
        try (Harness h = new Harness(receiptsOn())) {
            JsonNode snapshot = escalate(h, "h1");
            String sha = snapshot.get("content_sha256").asText();
            h.advance(Duration.ofSeconds(5));
            send(h, receipt("h1", sha, null, null));
            send(h, receipt("h1", sha, "RESOLVED", 12_345L));

            List<JsonNode> out = outcomes(h);
            assertThat(out).hasSize(2);
            JsonNode started = out.get(0);
            assertThat(started.get("snapshot_id").asText()).isEqualTo("acme/s1/h1");
            assertThat(started.get("from_agent").asText()).isEqualTo("planner");
            assertThat(started.get("to_agent").asText()).isEqualTo("coder");
            assertThat(started.get("content_sha256").asText()).isEqualTo(sha);
            assertThat(started.get("receiver_model").asText()).isEqualTo("claude-opus");
            assertThat(started.get("outcome").isNull()).isTrue();
            assertThat(started.get("time_to_receipt_millis").asLong()).isEqualTo(5_000L);
            assertThat(started.get("token_count").asText()).isEqualTo("ESTIMATE");
            assertThat(started.get("brick_chars").asLong()).isEqualTo(snapshot.get("stats").get("brick_chars").asLong());
            assertThat(started.get("snapshot_bytes").asLong()).isPositive();
            JsonNode ended = out.get(1);
            assertThat(ended.get("outcome").asText()).isEqualTo("RESOLVED");
            assertThat(ended.get("tokens_spent").asLong()).isEqualTo(12_345L);
            assertThat(h.readDeadLetters()).isEmpty();

            assertThat(h.metric(MetricCatalogue.TENANT_SNAPSHOTS.streamsName(), "tenant", T)).isEqualTo(1.0);
            assertThat(h.metric(MetricCatalogue.TENANT_SNAPSHOT_BYTES.streamsName(), "tenant", T))
                    .isEqualTo(started.get("snapshot_bytes").asDouble());
            assertThat(h.metric(MetricCatalogue.TENANT_BRICK_TOKENS.streamsName(), "count", "estimate"))
                    .isEqualTo(started.get("brick_tokens").asDouble());
            assertThat(h.metric(MetricCatalogue.TENANT_RECEIVER_TOKENS.streamsName(), "tenant", T))
                    .isEqualTo(12_345.0);
            assertThat(h.metric(MetricCatalogue.TENANT_OUTCOMES.streamsName(), "outcome", "RESOLVED")).isEqualTo(1.0);
        }
    }

    @Test
    void shouldRepeatTheDialectEachReceiptNamesOnItsOutcome() {
        try (Harness h = new Harness(receiptsOn())) {
            String sha = escalate(h, "h1").get("content_sha256").asText();
            send(h, receipt("h1", sha, null, null).put("dialect", "anthropic-messages"));
            send(h, receipt("h1", sha, "RESOLVED", 10L));

            List<JsonNode> out = outcomes(h);
            assertThat(out).hasSize(2);
            assertThat(out.get(0).get("dialect").asText()).isEqualTo("anthropic-messages");
            assertThat(out.get(1).get("dialect").isNull()).as("the end receipt named none").isTrue();
            assertThat(h.readDeadLetters()).isEmpty();
        }
    }

    @Test
    void shouldDeadLetterAReceiptWhoseDialectIsNotAName() {
        try (Harness h = new Harness(receiptsOn())) {
            String sha = escalate(h, "h1").get("content_sha256").asText();
            send(h, receipt("h1", sha, null, null).put("dialect", "Anthropic Messages\n"));
            List<Harness.DeadLetterOut> dead = h.readDeadLetters();
            assertThat(dead).extracting(Harness.DeadLetterOut::code).containsExactly(ErrorCode.INVALID_FIELD.name());
            assertThat(outcomes(h)).isEmpty();
        }
    }

    @Test
    void shouldLabelATenantOutsideTheAllowListAsOther() {
        try (Harness h = new Harness(receiptsOn(BatonConfig.METRICS_TENANTS, "someone-else"))) {
            escalate(h, "h1");
            assertThat(h.metric(MetricCatalogue.TENANT_SNAPSHOTS.streamsName(), "tenant", "other")).isEqualTo(1.0);
            assertThat(h.metric(MetricCatalogue.TENANT_SNAPSHOTS.streamsName(), "tenant", T)).isZero();
        }
    }

    @Test
    void shouldCountExactTokensWhenThePolicyCountsThem() {
        try (Harness h = new Harness(receiptsOn("baton.policy.token_count_encodings", "o200k_base"))) {
            JsonNode snapshot = escalate(h, "h1");
            send(h, receipt("h1", snapshot.get("content_sha256").asText(), null, null));
            JsonNode out = outcomes(h).get(0);
            assertThat(out.get("token_count").asText()).isEqualTo("EXACT");
            assertThat(out.get("token_encoding").asText()).isEqualTo("o200k_base");
            JsonNode counted = snapshot.get("stats").get("token_counts").get(0);
            assertThat(out.get("brick_tokens").asLong()).isEqualTo(counted.get("brick_tokens").asLong());
            assertThat(h.metric(MetricCatalogue.TENANT_BRICK_TOKENS.streamsName(), "count", "exact"))
                    .isEqualTo(counted.get("brick_tokens").asDouble());
        }
    }

    @Test
    void shouldDeadLetterAReceiptWhoseHashIsNotTheSnapshots() {
        try (Harness h = new Harness(receiptsOn())) {
            escalate(h, "h1");
            ObjectNode r = receipt("h1", ZERO_HASH, null, null);
            send(h, r);
            assertThat(outcomes(h)).isEmpty();
            List<Harness.DeadLetterOut> dl = h.readDeadLetters();
            assertThat(dl).singleElement().satisfies(d -> {
                assertThat(d.code()).isEqualTo(ErrorCode.RECEIPT_HASH_MISMATCH.name());
                assertThat(new String(d.value(), StandardCharsets.UTF_8)).isEqualTo(r.toString());
                assertThat(d.headers().get("baton.source.topic")).isEqualTo(RECEIPTS);
            });
            assertThat(h.metric(MetricCatalogue.DEAD_LETTERS.streamsName(), "code",
                    ErrorCode.RECEIPT_HASH_MISMATCH.name())).isEqualTo(1.0);
        }
    }

    @Test
    void shouldDeadLetterAReceiptForASnapshotTheSessionNeverWrote() {
        try (Harness h = new Harness(receiptsOn())) {
            escalate(h, "h1");
            send(h, receipt("h9", ZERO_HASH, null, null));
            assertThat(h.readDeadLetters()).as("held while its snapshot may still come").isEmpty();
            h.advance(Duration.ofSeconds(61));
            assertThat(h.readDeadLetters()).singleElement()
                    .satisfies(d -> assertThat(d.code()).isEqualTo(ErrorCode.UNKNOWN_SNAPSHOT.name()));
            assertThat(h.metric(MetricCatalogue.DEAD_LETTERS.streamsName(), "code",
                    ErrorCode.UNKNOWN_SNAPSHOT.name())).isEqualTo(1.0);
            assertThat(outcomes(h)).isEmpty();
        }
    }

    @Test
    void shouldRefuseAReceiptKeyedByAnotherSession() {
        try (Harness h = new Harness(receiptsOn())) {
            send(h, "acme/other", receipt("h1", ZERO_HASH, null, null));
            send(h, receipt("h1", "not-a-hash", null, null));
            List<String> codes = h.readDeadLetters().stream().map(Harness.DeadLetterOut::code).toList();
            assertThat(codes).containsExactly(ErrorCode.KEY_MISMATCH.name(), ErrorCode.INVALID_FIELD.name());
        }
    }

    @Test
    void shouldCountAnUnacknowledgedHandoffUntilALateReceiptComes() {
        try (Harness h = new Harness(receiptsOn())) {
            String sha = escalate(h, "h1").get("content_sha256").asText();
            String gauge = MetricCatalogue.UNACKNOWLEDGED_HANDOFFS.streamsName();
            h.advance(Duration.ofSeconds(30));
            assertThat(h.metric(gauge, "tenant", T)).isZero();
            h.advance(Duration.ofSeconds(31));
            assertThat(h.metric(gauge, "tenant", T)).as("past receipt_timeout_millis").isEqualTo(1.0);

            send(h, receipt("h1", sha, null, null));
            assertThat(h.metric(gauge, "tenant", T)).isZero();
            assertThat(h.metric(MetricCatalogue.LATE_RECEIPTS.streamsName())).isEqualTo(1.0);
            assertThat(outcomes(h)).singleElement()
                    .satisfies(o -> assertThat(o.get("time_to_receipt_millis").asLong()).isGreaterThan(60_000L));
        }
    }

    @Test
    void shouldIgnoreAndCountDuplicateReceipts() {
        try (Harness h = new Harness(receiptsOn())) {
            String sha = escalate(h, "h1").get("content_sha256").asText();
            send(h, receipt("h1", sha, null, null));
            send(h, receipt("h1", sha, null, null));
            send(h, receipt("h1", sha, "FAILED", 10L));
            send(h, receipt("h1", sha, "RESOLVED", 20L));
            send(h, receipt("h1", sha, null, null));
            List<JsonNode> out = outcomes(h);
            assertThat(out).hasSize(2);
            assertThat(out.get(1).get("outcome").asText()).isEqualTo("FAILED");
            assertThat(h.metric(MetricCatalogue.DUPLICATE_RECEIPTS.streamsName())).isEqualTo(3.0);
            assertThat(h.readDeadLetters()).isEmpty();
        }
    }

    @Test
    void shouldHoldAReceiptThatArrivesBeforeItsSnapshot() {
        String sha;
        try (Harness first = new Harness(receiptsOn())) {
            sha = escalate(first, "h1").get("content_sha256").asText(); // snapshots are deterministic (R10)
        }
        try (Harness h = new Harness(receiptsOn())) {
            send(h, receipt("h1", sha, "RESOLVED", 99L));
            assertThat(outcomes(h)).isEmpty();
            assertThat(h.metric(MetricCatalogue.HELD_RECEIPTS.streamsName())).isEqualTo(1.0);
            assertThat(escalate(h, "h1").get("content_sha256").asText()).isEqualTo(sha);
            List<JsonNode> out = outcomes(h);
            assertThat(out).singleElement().satisfies(o -> {
                assertThat(o.get("outcome").asText()).isEqualTo("RESOLVED");
                assertThat(o.get("time_to_receipt_millis").asLong()).isZero();
            });
            h.advance(Duration.ofSeconds(120));
            assertThat(h.readDeadLetters()).isEmpty();
        }
    }

    @Test
    void shouldMatchAReceiptAfterARestart() throws IOException {
        Path stateDir = Files.createTempDirectory("baton-receipts-restart");
        Map<String, String> settings = receiptsOn("state.dir", stateDir.toString());
        String sha;
        Map<String, byte[]> ledger = new HashMap<>();
        Map<String, Long> timers = new HashMap<>();
        try (Harness h = new Harness(settings)) {
            sha = escalate(h, "h1").get("content_sha256").asText();
            h.advance(Duration.ofSeconds(61)); // unacknowledged by now
            h.driver.<String, byte[]>getKeyValueStore(HandoffReceiptProcessor.LEDGER_STORE).all()
                    .forEachRemaining(kv -> ledger.put(kv.key, kv.value));
            h.driver.<String, Long>getKeyValueStore(HandoffReceiptProcessor.TIMER_STORE).all()
                    .forEachRemaining(kv -> timers.put(kv.key, kv.value));
        }
        assertThat(ledger).containsOnlyKeys(SessionKey.format(T, S));
        // A new instance whose stores hold what the changelogs restore.
        try (Harness h = new Harness(settings)) {
            // what the changelog restore puts back (idempotent where the test driver kept the state directory)
            ledger.forEach(h.driver.<String, byte[]>getKeyValueStore(HandoffReceiptProcessor.LEDGER_STORE)::put);
            timers.forEach(h.driver.<String, Long>getKeyValueStore(HandoffReceiptProcessor.TIMER_STORE)::put);
            send(h, receipt("h1", sha, "HANDED_BACK", 7L));
            assertThat(outcomes(h)).singleElement()
                    .satisfies(o -> assertThat(o.get("outcome").asText()).isEqualTo("HANDED_BACK"));
            assertThat(h.readDeadLetters()).isEmpty();
        } finally {
            try (var paths = Files.walk(stateDir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void shouldShowThePreviousEscalationsOutcomeInTheNextBrick() {
        try (Harness h = new Harness(receiptsOn())) {
            String sha = escalate(h, "h1").get("content_sha256").asText();
            send(h, receipt("h1", sha, null, null));
            send(h, receipt("h1", sha, "HANDED_BACK", 50_000L));
            h.send(h.turn(T, S, 2, "planner", "ASSISTANT", "back to me"));
            h.send(h.handoff(T, S, "h2", "planner", "coder", null));
            String brick = h.readSnapshots().get(0).value().get("brick").asText();
            assertThat(brick.lines().toList()).contains(
                    "[previous hand-off: escalated to claude-opus at seq 1: failed — handed back]");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json", "avro"})
    void shouldWriteByteIdenticalSnapshotsWhenNoReceiptCame(String format) {
        List<String> withReceipts;
        try (Harness h = new Harness(receiptsOn(BatonConfig.FORMAT, format))) {
            withReceipts = snapshotsOfTwoHandoffs(h);
        }
        try (Harness h = new Harness(Map.of(BatonConfig.FORMAT, format))) {
            assertThat(snapshotsOfTwoHandoffs(h)).isEqualTo(withReceipts);
        }
    }

    private static List<String> snapshotsOfTwoHandoffs(Harness h) {
        h.send(h.turn(T, S, 0, "user", "USER", "fix the build"));
        h.send(h.handoff(T, S, "h1", null, "coder", null));
        h.send(h.turn(T, S, 1, "coder", "ASSISTANT", "done"));
        h.send(h.handoff(T, S, "h2", "coder", "planner", null));
        List<String> out = new ArrayList<>();
        for (KeyValue<byte[], byte[]> kv : h.snapshots.readKeyValuesToList()) {
            out.add(java.util.HexFormat.of().formatHex(kv.value));
        }
        assertThat(out).hasSize(2);
        return out;
    }

    @Test
    void shouldReadAvroReceiptsAndWriteAvroOutcomes() {
        try (Harness h = new Harness(receiptsOn(BatonConfig.FORMAT, "avro"))) {
            JsonNode snapshot = escalate(h, "h1");
            var registry = MockSchemaRegistry.forScope(h.config.schemaRegistryUrl().orElseThrow()
                    .substring("mock://".length()));
            var receipts = new ConfluentAvroCodec<>(registry, HandoffReceipt.class);
            HandoffReceipt r = AvroJson.read(receipt("h1", snapshot.get("content_sha256").asText(), "ABANDONED", 3L)
                    .toString(), HandoffReceipt.class);
            h.receipts.pipeInput(SessionKey.format(T, S).getBytes(StandardCharsets.UTF_8), receipts.serialize(RECEIPTS, r));
            var outcomes = new ConfluentAvroCodec<>(registry, HandoffOutcome.class);
            List<KeyValue<byte[], byte[]>> out = h.outcomes.readKeyValuesToList();
            assertThat(out).singleElement().satisfies(kv -> {
                HandoffOutcome o = outcomes.deserialize(kv.value);
                assertThat(o.getOutcome().name()).isEqualTo("ABANDONED");
                assertThat(o.getTokensSpent()).isEqualTo(3L);
            });
        }
    }
}
