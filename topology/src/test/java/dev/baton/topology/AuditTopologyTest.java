package dev.baton.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.config.BatonConfig;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.state.SessionState;
import dev.baton.processor.SessionProvenance;
import dev.baton.processor.SessionRepository;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Every snapshot carries its input range (provenance) and, when asked, exact token counts. */
class AuditTopologyTest {
    private static final String T = "acme";
    private static final String A = "a";
    private static final String B = "b";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json", "avro"})
    void shouldRecordTheOffsetsOfTheFirstAndLastAppliedEventsOfTheSession(String format) {
        try (Harness h = new Harness(Map.of(BatonConfig.FORMAT, format))) {
            h.send(h.turn(T, A, 0, "user", "USER", "task"));              // offset 0
            h.send(h.turn(T, B, 0, "user", "USER", "other session"));     // offset 1
            h.send(h.turn(T, A, 1, "planner", "ASSISTANT", "plan"));      // offset 2
            h.send(h.handoff(T, A, "h1", "planner", "coder", null));      // offset 3
            h.send(h.handoff(T, B, "h1", null, "coder", null));           // offset 4

            List<Harness.Out> out = h.readSnapshots();
            assertThat(out).hasSize(2);
            assertProvenance(out.get(0).value(), h.config.sessionEventsTopic(), 0, 3);
            assertProvenance(out.get(1).value(), h.config.sessionEventsTopic(), 1, 4);

            h.send(h.turn(T, A, 1, "planner", "ASSISTANT", "a duplicate"));   // offset 5: not applied
            assertThat(provenance(h, SessionKey.of(T, A).toString()).lastOffset()).isEqualTo(3);
            h.send(h.handoff(T, A, "h1", "planner", "coder", null));          // offset 6: a duplicate hand-off
            assertThat(provenance(h, SessionKey.of(T, A).toString()).lastOffset()).isEqualTo(3);
            h.send(h.handoff(T, A, "h2", "planner", "coder", 2L));            // offset 7: waits for seq 2
            h.send(h.turn(T, A, 2, "coder", "ASSISTANT", "done"));            // offset 8: releases it
            assertThat(h.readSnapshots()).singleElement()
                    .satisfies(s -> assertProvenance(s.value(), h.config.sessionEventsTopic(), 0, 8));
        }
    }

    @Test
    void shouldRecordInputLinesFromTheSourceLineHeaderInsteadOfOffsets() {
        try (Harness h = new Harness(Map.of(BatonConfig.PUNCTUATE_WALL_CLOCK, "false"))) {
            sendWithLine(h, h.turn(T, A, 0, "user", "USER", "task"), 7);
            sendWithLine(h, h.turn(T, A, 1, "planner", "ASSISTANT", "plan"), 9);
            sendWithLine(h, h.handoff(T, A, "h1", "planner", "coder", null), 12);

            JsonNode p = h.readSnapshots().get(0).value().get("provenance");
            assertThat(p.get("first_line").asLong()).isEqualTo(7);
            assertThat(p.get("last_line").asLong()).isEqualTo(12);
            assertThat(p.get("topic").isNull()).isTrue();
            assertThat(p.get("first_offset").isNull()).isTrue();
        }
    }

    @Test
    void shouldDeleteTheProvenanceWithTheSession() {
        try (Harness h = new Harness(Map.of("baton.policy.closed_grace_millis", "60000"))) {
            h.send(h.turn(T, A, 0, "user", "USER", "task"));
            h.send(h.closed(T, A));
            assertThat(provenance(h, SessionKey.of(T, A).toString())).isNotNull();
            h.advance(Duration.ofSeconds(61));
            assertThat(h.sessionStore().get(SessionKey.of(T, A).toString())).isNull();
            assertThat(provenance(h, SessionKey.of(T, A).toString())).isNull();
            assertThat(count(h.driver.getKeyValueStore(SessionProvenance.STORE))).as("format 2's store stays empty")
                    .isZero();

            h.send(h.turn(T, A, 0, "user", "USER", "a new session under the same key")); // offset 2
            h.send(h.handoff(T, A, "h1", null, "coder", null));                        // offset 3
            assertProvenance(h.readSnapshots().get(0).value(), h.config.sessionEventsTopic(), 2, 3);
        }
    }

    @Test
    void shouldCountTokensOnlyForTenantsWhosePolicyAsks() {
        try (Harness h = new Harness()) {
            h.policy("counted", "{\"tenant_id\":\"counted\",\"token_count_encodings\":\"o200k_base,cl100k_base\"}");
            h.policy("typo", "{\"tenant_id\":\"typo\",\"token_count_encodings\":\"o200k\"}"); // invalid: defaults
            for (String tenant : List.of("counted", "plain", "typo")) {
                h.send(h.turn(tenant, A, 0, "user", "USER", "tiktoken is great!"));
                h.send(h.handoff(tenant, A, "h1", null, "coder", null));
            }
            List<Harness.Out> out = h.readSnapshots();
            JsonNode counts = out.get(0).value().get("stats").get("token_counts");
            assertThat(counts).hasSize(2);
            assertThat(counts.get(0).get("encoding").asText()).isEqualTo("o200k_base");
            assertThat(counts.get(0).get("transcript_tokens").asLong()).isEqualTo(6); // OpenAI's cookbook figure
            assertThat(counts.get(1).get("encoding").asText()).isEqualTo("cl100k_base");
            assertThat(counts.get(1).get("transcript_tokens").asLong()).isEqualTo(6);
            assertThat(counts.get(0).get("brick_tokens").asLong()).isPositive();
            assertThat(out.get(1).value().get("stats").get("token_counts").isNull()).isTrue();
            assertThat(out.get(2).value().get("stats").get("token_counts").isNull()).isTrue();
        }
    }

    @Test
    void shouldCapTheTranscriptInTokensOfATenantPolicy() {
        try (Harness h = new Harness()) {
            h.policy("capped", "{\"tenant_id\":\"capped\",\"transcript_budget_tokens\":3000,"
                    + "\"transcript_budget_encoding\":\"cl100k_base\",\"token_count_encodings\":\"cl100k_base\"}");
            h.policy("uncapped", "{\"tenant_id\":\"uncapped\",\"token_count_encodings\":\"cl100k_base\"}");
            for (String tenant : List.of("capped", "uncapped")) {
                h.send(h.turn(tenant, A, 0, "user", "USER", "task"));
                for (int i = 1; i <= 40; i++) {
                    h.send(h.turn(tenant, A, i, i % 2 == 0 ? "user" : "planner", i % 2 == 0 ? "USER" : "ASSISTANT",
                            ("step " + i + " of the plan, with details. ").repeat(40)));
                }
                h.send(h.handoff(tenant, A, "h1", "planner", "coder", null));
            }
            List<Harness.Out> out = h.readSnapshots();
            long capped = out.get(0).value().get("stats").get("token_counts").get(0).get("transcript_tokens").asLong();
            long uncapped = out.get(1).value().get("stats").get("token_counts").get(0).get("transcript_tokens").asLong();
            assertThat(uncapped).isGreaterThan(3000);
            assertThat(capped).isLessThanOrEqualTo(3000).isGreaterThan(2000);
            assertThat(out.get(0).truncationKinds()).containsAnyOf("TRANSCRIPT_MIDDLE_SUMMARIZED",
                    "TRANSCRIPT_MIDDLE_DROPPED");
        }
    }

    private static void sendWithLine(Harness h, ObjectNode event, long line) {
        String key = SessionKey.format(event.get("tenant_id").asText(), event.get("session_id").asText());
        RecordHeaders headers = new RecordHeaders();
        headers.add(SessionProvenance.SOURCE_LINE_HEADER, Long.toString(line).getBytes(StandardCharsets.US_ASCII));
        h.events.pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), h.encode(event), headers,
                Harness.T0));
    }

    private static void assertProvenance(JsonNode snapshot, String topic, long first, long last) {
        JsonNode p = snapshot.get("provenance");
        assertThat(p.get("topic").asText()).isEqualTo(topic);
        assertThat(p.get("partition").asInt()).isZero();
        assertThat(p.get("first_offset").asLong()).as("first offset").isEqualTo(first);
        assertThat(p.get("last_offset").asLong()).as("last offset").isEqualTo(last);
        assertThat(p.get("first_line").isNull()).isTrue();
    }

    private static long count(KeyValueStore<String, byte[]> store) {
        long n = 0;
        try (var it = store.all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    /** The input range stored in the session's skeleton (format 3), or null when the session has no state. */
    private static InputRange provenance(Harness h, String key) {
        SessionState state = SessionRepository.read(key, h.driver.getKeyValueStore(SessionRepository.SKELETON_STORE),
                h.driver.getKeyValueStore(SessionRepository.ENTRY_STORE),
                h.driver.getKeyValueStore(SessionRepository.HANDOFF_ID_STORE));
        return state == null ? null : state.inputRange();
    }
}
