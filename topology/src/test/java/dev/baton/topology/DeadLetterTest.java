package dev.baton.topology;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.engine.model.SessionKey;
import dev.baton.processor.SessionContextProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every dead-letter code reaches the dead-letter topic with the original bytes and all five headers. */
class DeadLetterTest {
    private static final String T = "acme";
    private static final String S = "s1";
    private static final String KEY = SessionKey.of(T, S).toString();

    static Stream<Arguments> rejections() {
        Map<String, Function<Harness, String>> cases = Map.of(
                "MALFORMED", h -> "{not json",
                "INVALID_ID", h -> h.turn("bad tenant!", S, 0, "user", "USER", "x").toString(),
                "INVALID_NAME", h -> h.turn(T, S, 0, "user with spaces", "USER", "x").toString(),
                "INVALID_FIELD", h -> h.turn(T, S, -1, "user", "USER", "x").toString(),
                "BAD_PAYLOAD", h -> {
                    ObjectNode two = h.turn(T, S, 0, "user", "USER", "x");
                    two.putObject("closed");
                    return two.toString();
                },
                "OVERSIZED", h -> h.turn(T, S, 0, "user", "USER", "x".repeat(1024 * 1024)).toString());
        return cases.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejections")
    void shouldDeadLetterARejectedRecordWithAllHeaders(String code, Function<Harness, String> value) {
        try (Harness h = new Harness()) {
            String v = value.apply(h);
            String key = code.equals("INVALID_ID") ? "bad tenant!/" + S : KEY;
            h.send(key, v);

            assertThat(h.readDeadLetters()).singleElement().satisfies(dl -> {
                assertThat(dl.code()).isEqualTo(code);
                assertThat(new String(dl.key(), StandardCharsets.UTF_8)).isEqualTo(key);
                if (code.equals("OVERSIZED")) {
                    // only the first 64 KiB, and the original size
                    byte[] whole = v.getBytes(StandardCharsets.UTF_8);
                    assertThat(dl.value()).isEqualTo(java.util.Arrays.copyOf(whole, dev.baton.deadletter.DeadLetters.EXCERPT_BYTES));
                    assertThat(dl.headers()).containsEntry(dev.baton.deadletter.DeadLetterHeaders.ORIGINAL_SIZE,
                            Integer.toString(whole.length));
                } else {
                    assertThat(new String(dl.value(), StandardCharsets.UTF_8)).isEqualTo(v);
                    assertThat(dl.headers()).doesNotContainKey(dev.baton.deadletter.DeadLetterHeaders.ORIGINAL_SIZE);
                }
                assertThat(dl.headers()).containsEntry(DeadLetterHeaders.SOURCE_TOPIC, "baton.session-events")
                        .containsEntry(DeadLetterHeaders.SOURCE_PARTITION, "0")
                        .containsEntry(DeadLetterHeaders.SOURCE_OFFSET, "0")
                        .containsKey(DeadLetterHeaders.MESSAGE);
                assertThat(dl.headers().get(DeadLetterHeaders.MESSAGE)).isNotBlank();
            });
            assertThat(h.metric("dead-letters-total", "code", code)).isEqualTo(1);
            assertThat(h.readSnapshots()).isEmpty();
        }
    }

    @Test
    void shouldDeadLetterAnAvroRecordWithAnUnknownSchemaId() {
        try (Harness h = new Harness(Map.of(dev.baton.config.BatonConfig.FORMAT, "avro"))) {
            byte[] value = {0, 0, 0, 0x27, 0x0F, 2, 'x'}; // magic byte, schema id 9999, some Avro
            h.sendRaw(KEY.getBytes(StandardCharsets.UTF_8), value);
            h.send(h.turn(T, S, 0, "user", "USER", "a good Avro record still goes through"));
            h.send(h.handoff(T, S, "h1", null, "coder", null));

            assertThat(h.readDeadLetters()).singleElement().satisfies(dl -> {
                assertThat(dl.code()).isEqualTo("UNKNOWN_SCHEMA");
                assertThat(dl.value()).isEqualTo(value);
                assertThat(dl.headers()).containsKeys(DeadLetterHeaders.MESSAGE, DeadLetterHeaders.SOURCE_TOPIC,
                        DeadLetterHeaders.SOURCE_PARTITION, DeadLetterHeaders.SOURCE_OFFSET);
            });
            assertThat(h.readSnapshots()).singleElement().satisfies(s -> assertThat(s.turnCount()).isEqualTo(1));
        }
    }

    @Test
    void shouldDeadLetterAKeyWhoseTenantIsNotTheValues() {
        try (Harness h = new Harness()) {
            String v = h.turn(T, S, 0, "user", "USER", "x").toString();
            h.send("other-tenant/" + S, v);
            h.send(null, v);

            List<Harness.DeadLetterOut> out = h.readDeadLetters();
            assertThat(out).extracting(Harness.DeadLetterOut::code).containsExactly("KEY_MISMATCH", "KEY_MISMATCH");
            assertThat(new String(out.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("other-tenant/" + S);
            assertThat(out.get(1).key()).isNull();
            assertThat(out).allSatisfy(dl -> {
                assertThat(new String(dl.value(), StandardCharsets.UTF_8)).isEqualTo(v);
                assertThat(dl.headers()).containsKeys(DeadLetterHeaders.MESSAGE, DeadLetterHeaders.SOURCE_TOPIC,
                        DeadLetterHeaders.SOURCE_PARTITION, DeadLetterHeaders.SOURCE_OFFSET);
            });
            assertThat(h.sessionStore().get(KEY)).isNull();
        }
    }

    @Test
    void shouldDeadLetterALateTurnWithItsOriginalBytes() {
        try (Harness h = new Harness(Map.of("baton.policy.gap_wait_millis", "1000"))) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.send(h.turn(T, S, 2, "planner", "ASSISTANT", "after a gap"));
            h.advance(java.time.Duration.ofSeconds(2)); // seq 1 is recorded missing
            String late = h.turn(T, S, 1, "planner", "ASSISTANT", "too late").toString();
            h.send(KEY, late);

            assertThat(h.readDeadLetters()).singleElement().satisfies(dl -> {
                assertThat(dl.code()).isEqualTo("LATE_TURN");
                assertThat(new String(dl.value(), StandardCharsets.UTF_8)).isEqualTo(late);
                assertThat(dl.headers()).containsEntry(DeadLetterHeaders.SOURCE_OFFSET, "2")
                        .containsEntry(DeadLetterHeaders.SOURCE_PARTITION, "0")
                        .containsEntry(DeadLetterHeaders.SOURCE_TOPIC, "baton.session-events");
            });
        }
    }

    @Test
    void shouldDeadLetterAnUnexpectedFailureAsInternalAndKeepGoing() {
        try (Harness h = new Harness()) {
            h.sessionStore().put(KEY, new byte[]{1, 2, 3}); // a state value nothing can decode
            String v = h.turn(T, S, 0, "user", "USER", "task").toString();
            h.send(KEY, v);
            h.send(h.turn(T, "s2", 0, "user", "USER", "task"));
            h.send(h.handoff(T, "s2", "h1", null, "coder", null));

            assertThat(h.readDeadLetters()).singleElement().satisfies(dl -> {
                assertThat(dl.code()).isEqualTo("INTERNAL");
                assertThat(new String(dl.value(), StandardCharsets.UTF_8)).isEqualTo(v);
            });
            assertThat(h.readSnapshots()).extracting(Harness.Out::key).containsExactly(T + "/s2");
        }
    }

    @Test
    void shouldDeadLetterTheInputThroughTheExceptionHandlerWhenItsSnapshotCannotBeEncoded() {
        UnaryOperator<BatonCodecs> failing = real -> new BatonCodecs(real.events(), (topic, snapshot) -> {
            if (snapshot.handoffId().equals("bad")) throw new IllegalStateException("cannot encode");
            return real.snapshots().encodeHashed(topic, snapshot);
        }, real.policies());
        try (Harness h = new Harness(Map.of(), failing)) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            String bad = h.handoff(T, S, "bad", null, "coder", null).toString();
            h.send(KEY, bad);
            h.send(h.handoff(T, S, "good", null, "coder", null));

            assertThat(h.readDeadLetters()).singleElement().satisfies(dl -> {
                assertThat(dl.code()).isEqualTo("INTERNAL");
                assertThat(new String(dl.value(), StandardCharsets.UTF_8)).isEqualTo(bad);
                assertThat(dl.headers()).containsEntry(DeadLetterHeaders.SOURCE_OFFSET, "1")
                        .containsEntry(DeadLetterHeaders.SOURCE_TOPIC, "baton.session-events")
                        .containsEntry(DeadLetterHeaders.SOURCE_PARTITION, "0");
                assertThat(dl.headers().get(DeadLetterHeaders.MESSAGE)).contains("cannot encode");
            });
            assertThat(h.readSnapshots()).extracting(Harness.Out::handoffId).containsExactly("good");
        }
    }

    @Test
    void shouldCountTheExceptionHandlersDeadLettersWithTheTopologysOnes() {
        UnaryOperator<BatonCodecs> failing = real -> new BatonCodecs(real.events(), (topic, snapshot) -> {
            throw new IllegalStateException("cannot encode");
        }, real.policies());
        try (Harness h = new Harness(Map.of(), failing)) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.send(h.handoff(T, S, "h1", null, "coder", null));
            h.send(KEY, "{not json");

            assertThat(h.readDeadLetters()).extracting(Harness.DeadLetterOut::code)
                    .containsExactly("INTERNAL", "MALFORMED");
            assertThat(h.metric("dead-letters-total", "code", "INTERNAL")).isEqualTo(1);
            assertThat(h.metric("dead-letters-total", "code", "MALFORMED")).isEqualTo(1);
            assertThat(h.metric("dead-letters-total")).isEqualTo(2);
        }
    }

    @Test
    void shouldDeadLetterAnUnknownControlSignal() {
        try (Harness h = new Harness()) {
            var headers = new org.apache.kafka.common.header.internals.RecordHeaders();
            headers.add(SessionContextProcessor.CONTROL_HEADER, "explode".getBytes(StandardCharsets.UTF_8));
            h.events.pipeInput(new org.apache.kafka.streams.test.TestRecord<>(KEY.getBytes(StandardCharsets.UTF_8),
                    new byte[0], headers, Harness.T0));
            assertThat(h.readDeadLetters()).extracting(Harness.DeadLetterOut::code).containsExactly("INVALID_FIELD");
        }
    }
}
