package dev.baton.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.engine.model.SessionKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The bundled demo sample has the shapes the demo promises, in the contract's JSONL form. */
class DemoSampleTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<JsonNode> events = new ArrayList<>();
    private static int sampleBytes;

    @BeforeAll
    static void load() throws IOException {
        try (InputStream in = DemoSampleTest.class.getResourceAsStream(DemoRunner.SAMPLE_RESOURCE)) {
            assertThat(in).as("bundled sample").isNotNull();
            byte[] bytes = in.readAllBytes();
            sampleBytes = bytes.length;
            for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
                events.add(JSON.readTree(line));
            }
        }
    }

    @Test
    void shouldBeSmall() {
        assertThat(sampleBytes).isLessThan(300 * 1024);
    }

    @Test
    void shouldHaveExactlyOnePayloadAndTheCommonFieldsOnEveryLine() {
        for (JsonNode event : events) {
            assertThat(event.fieldNames()).toIterable()
                    .contains("event_id", "tenant_id", "session_id", "occurred_at");
            long payloads = List.of("turn", "handoff", "closed").stream().filter(event::has).count();
            assertThat(payloads).as(event.get("event_id").asText()).isEqualTo(1);
        }
        Set<String> ids = events.stream().map(e -> e.get("event_id").asText()).collect(Collectors.toSet());
        assertThat(ids).hasSize(events.size());
    }

    @Test
    void shouldHaveEventTimesThatNeverGoBackWithinASession() {
        // the demo prints a hand-off's occurred_at; a sample whose clock runs backwards would not look like a platform's
        Map<String, Instant> latest = new HashMap<>();
        for (JsonNode event : events) {
            Instant at = Instant.parse(event.get("occurred_at").asText());
            String session = SessionKey.format(event.get("tenant_id").asText(), event.get("session_id").asText());
            Instant before = latest.put(session, at);
            if (before != null) {
                assertThat(at).as("%s of %s", event.get("event_id").asText(), session).isAfterOrEqualTo(before);
            }
        }
        assertThat(latest).hasSizeGreaterThanOrEqualTo(3);
    }

    @Test
    void shouldCoverSeveralTenantsAndBothTargets() {
        assertThat(events.stream().map(e -> e.get("tenant_id").asText()).distinct().count()).isGreaterThanOrEqualTo(3);
        assertThat(handoffs().stream().map(h -> h.get("target").asText()).distinct())
                .containsExactlyInAnyOrder("LOCAL", "CLAUDE_CLI");
    }

    @Test
    void shouldEscalateFromTheLocalModelToOpusWithToolEvidence() {
        assertThat(handoffs()).anySatisfy(h -> {
            assertThat(h.get("from_agent").asText()).isEqualTo("qwen-coder");
            assertThat(h.get("to_agent").asText()).isEqualTo("claude-opus");
        });
        assertThat(turns()).anySatisfy(t -> {
            assertThat(t.get("agent").asText()).isEqualTo("qwen-coder");
            assertThat(t.path("trail")).isNotEmpty();
            assertThat(t.path("trail").get(0).get("arguments").isObject()).isTrue();
        });
    }

    @Test
    void shouldHaveASessionOwnedFromTheStart() {
        assertThat(handoffs()).anySatisfy(h -> {
            assertThat(h.get("from_agent").isNull()).isTrue();
            assertThat(h.has("brief")).isFalse();
        });
    }

    @Test
    void shouldHaveLegacyToolCallsAndToolTurns() {
        assertThat(turns()).anySatisfy(t -> assertThat(t.path("tool_calls")).isNotEmpty());
        assertThat(turns()).anySatisfy(t -> {
            assertThat(t.get("role").asText()).isEqualTo("TOOL");
            assertThat(t.get("tool_call_id").asText()).isNotBlank();
        });
    }

    @Test
    void shouldHaveALongSessionHandedOffAtALoweredBudget() {
        JsonNode lowered = handoffs().stream().filter(h -> h.has("message_budget_chars")).findFirst().orElseThrow();
        assertThat(lowered.get("message_budget_chars").asInt()).isLessThanOrEqualTo(6000);
        long longest = events.stream().filter(e -> e.has("turn"))
                .collect(Collectors.groupingBy(e -> e.get("session_id").asText(), Collectors.counting()))
                .values().stream().mapToLong(Long::longValue).max().orElse(0);
        assertThat(longest).isGreaterThanOrEqualTo(55);
    }

    @Test
    void shouldHaveOneDuplicateSeqAndOneInvalidAgentName() {
        Set<String> seen = new HashSet<>();
        long duplicates = events.stream().filter(e -> e.has("turn"))
                .filter(e -> !seen.add(SessionKey.format(e.get("tenant_id").asText(), e.get("session_id").asText()) + "#"
                        + e.get("turn").get("seq").asLong()))
                .count();
        assertThat(duplicates).isEqualTo(1);
        long invalidNames = handoffs().stream()
                .filter(h -> !h.get("to_agent").asText().matches("[A-Za-z0-9_-]{1,64}")).count();
        assertThat(invalidNames).isEqualTo(1);
    }

    private static List<JsonNode> turns() {
        return events.stream().filter(e -> e.has("turn")).map(e -> e.get("turn")).toList();
    }

    private static List<JsonNode> handoffs() {
        return events.stream().filter(e -> e.has("handoff")).map(e -> e.get("handoff")).toList();
    }
}
