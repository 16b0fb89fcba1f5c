package dev.baton.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.ingest.SessionEventFixtures.Format;
import dev.baton.processor.InboundEvent;
import dev.baton.serde.MockSchemaRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.baton.ingest.SessionEventFixtures.KEY;
import static dev.baton.ingest.SessionEventFixtures.assistantTurn;
import static dev.baton.ingest.SessionEventFixtures.closed;
import static dev.baton.ingest.SessionEventFixtures.handoff;
import static dev.baton.ingest.SessionEventFixtures.toolTurn;
import static dev.baton.ingest.SessionEventFixtures.turnOf;
import static dev.baton.ingest.SessionEventFixtures.userTurn;
import static dev.baton.ingest.SessionEventFixtures.with;
import static org.assertj.core.api.Assertions.assertThat;

/** The contract checks that both formats share, each with a minimal bad record, run for JSON and for Avro. */
class SessionEventDecoderTest {
    private final String scope = "decoder-test-" + System.nanoTime();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    private Decoded decode(Format format, byte[] key, ObjectNode event) {
        return format.decoder(registry, SessionEventDecoder.DEFAULT_MAX_RECORD_BYTES).decode(key, format.encode(event, registry));
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void shouldAcceptATrailTurnAndCompactItsArguments(Format format) {
        byte[] value = format.encode(assistantTurn(), registry);

        Decoded decoded = format.decoder(registry, 1 << 20).decode(KEY, value);

        assertThat(decoded.accepted()).as(decoded.message()).isTrue();
        InboundEvent event = decoded.event();
        assertThat(event.eventId()).isEqualTo("e1");
        assertThat(event.sessionKey()).isEqualTo("t1/s1");
        assertThat(event.occurredAtMillis()).isEqualTo(Instant.parse("2026-01-31T12:00:00Z").toEpochMilli());
        assertThat(event.turn()).isEqualTo(new Turn(4, "claude", Role.ASSISTANT, "done",
                List.of(new ToolStep("c1", "grep", "{\"q\":\"x\",\"n\":1.0}", "hit", StepStatus.OK)),
                List.of(new ToolCall("c2", "read_file", "{\"path\":\"a\"}")), null, "anthropic", "m"));
        assertThat(event.handoff()).isNull();
        assertThat(event.closed()).isFalse();
        assertThat(event.rawKey()).isSameAs(KEY);
        assertThat(event.rawValue()).isSameAs(value);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void shouldAcceptHandoffsClosedAndToolTurns(Format format) {
        Decoded h = decode(format, KEY, handoff());
        Decoded c = decode(format, KEY, closed());
        Decoded t = decode(format, KEY, toolTurn());

        assertThat(h.event().handoff()).isEqualTo(new Handoff("h1", "claude", "qwen", Target.LOCAL, "take over", 5L, 10000));
        assertThat(c.event().closed()).isTrue();
        assertThat(c.event().closedReason()).isEqualTo("done");
        assertThat(c.event().turn()).isNull();
        assertThat(t.event().turn().toolCallId()).isEqualTo("c2");
    }

    static Stream<Arguments> rejections() {
        String longId = "x".repeat(129);
        List<Object[]> cases = new ArrayList<>();
        // INVALID_ID
        cases.add(new Object[]{"event_id with a space", ErrorCode.INVALID_ID, KEY, with(userTurn(), e -> e.put("event_id", "e 1"))});
        cases.add(new Object[]{"tenant_id with a slash, key to match", ErrorCode.INVALID_ID, bytes("t/1/s1"),
                with(userTurn(), e -> e.put("tenant_id", "t/1"))});
        cases.add(new Object[]{"empty session_id", ErrorCode.INVALID_ID, bytes("t1/"), with(userTurn(), e -> e.put("session_id", ""))});
        cases.add(new Object[]{"129-character handoff_id", ErrorCode.INVALID_ID, KEY,
                with(handoff(), e -> ((ObjectNode) e.get("handoff")).put("handoff_id", longId))});
        cases.add(new Object[]{"trail call_id", ErrorCode.INVALID_ID, KEY,
                with(assistantTurn(), e -> ((ObjectNode) turnOf(e).get("trail").get(0)).put("call_id", "c!"))});
        cases.add(new Object[]{"tool_calls call_id", ErrorCode.INVALID_ID, KEY,
                with(assistantTurn(), e -> ((ObjectNode) turnOf(e).get("tool_calls").get(0)).put("call_id", "c/2"))});
        cases.add(new Object[]{"tool_call_id", ErrorCode.INVALID_ID, KEY, with(toolTurn(), e -> turnOf(e).put("tool_call_id", "c 2"))});
        // INVALID_NAME
        cases.add(new Object[]{"agent", ErrorCode.INVALID_NAME, KEY, with(userTurn(), e -> turnOf(e).put("agent", "claude.ai"))});
        cases.add(new Object[]{"trail tool", ErrorCode.INVALID_NAME, KEY,
                with(assistantTurn(), e -> ((ObjectNode) turnOf(e).get("trail").get(0)).put("tool", "fs:read"))});
        cases.add(new Object[]{"tool_calls tool", ErrorCode.INVALID_NAME, KEY,
                with(assistantTurn(), e -> ((ObjectNode) turnOf(e).get("tool_calls").get(0)).put("tool", ""))});
        cases.add(new Object[]{"65-character to_agent", ErrorCode.INVALID_NAME, KEY,
                with(handoff(), e -> ((ObjectNode) e.get("handoff")).put("to_agent", "a".repeat(65)))});
        cases.add(new Object[]{"empty from_agent", ErrorCode.INVALID_NAME, KEY,
                with(handoff(), e -> ((ObjectNode) e.get("handoff")).put("from_agent", ""))});
        // KEY_MISMATCH
        cases.add(new Object[]{"other session in key", ErrorCode.KEY_MISMATCH, bytes("t1/s2"), userTurn()});
        cases.add(new Object[]{"missing key", ErrorCode.KEY_MISMATCH, null, userTurn()});
        cases.add(new Object[]{"key not UTF-8", ErrorCode.KEY_MISMATCH, new byte[]{'t', '1', '/', (byte) 0xc3}, userTurn()});
        // BAD_PAYLOAD
        cases.add(new Object[]{"no payload", ErrorCode.BAD_PAYLOAD, KEY, with(closed(), e -> e.remove("closed"))});
        cases.add(new Object[]{"turn and handoff", ErrorCode.BAD_PAYLOAD, KEY, with(handoff(), e -> e.set("turn", userTurn().get("turn")))});
        cases.add(new Object[]{"all three", ErrorCode.BAD_PAYLOAD, KEY,
                with(handoff(), e -> {
                    e.set("turn", userTurn().get("turn"));
                    e.set("closed", closed().get("closed"));
                })});
        // INVALID_FIELD
        cases.add(new Object[]{"negative seq", ErrorCode.INVALID_FIELD, KEY, with(userTurn(), e -> turnOf(e).put("seq", -1))});
        cases.add(new Object[]{"arguments an array", ErrorCode.INVALID_FIELD, KEY,
                with(assistantTurn(), e -> ((ObjectNode) turnOf(e).get("trail").get(0)).putArray("arguments").add(1))});
        cases.add(new Object[]{"arguments a string that is no JSON", ErrorCode.INVALID_FIELD, KEY,
                with(assistantTurn(), e -> ((ObjectNode) turnOf(e).get("tool_calls").get(0)).put("arguments", "{\"a\":"))});
        cases.add(new Object[]{"negative as_of_seq", ErrorCode.INVALID_FIELD, KEY,
                with(handoff(), e -> ((ObjectNode) e.get("handoff")).put("as_of_seq", -1))});
        cases.add(new Object[]{"zero message_budget_chars", ErrorCode.INVALID_FIELD, KEY,
                with(handoff(), e -> ((ObjectNode) e.get("handoff")).put("message_budget_chars", 0))});
        cases.add(new Object[]{"trail on a USER turn", ErrorCode.INVALID_FIELD, KEY,
                with(assistantTurn(), e -> turnOf(e).put("role", "USER"))});
        cases.add(new Object[]{"tool_calls on a TOOL turn", ErrorCode.INVALID_FIELD, KEY,
                with(toolTurn(), e -> turnOf(e).set("tool_calls", assistantTurn().get("turn").get("tool_calls")))});
        cases.add(new Object[]{"tool_call_id on an ASSISTANT turn", ErrorCode.INVALID_FIELD, KEY,
                with(assistantTurn(), e -> turnOf(e).put("tool_call_id", "c2"))});
        List<Arguments> result = new ArrayList<>();
        for (Format format : Format.values()) {
            for (Object[] c : cases) result.add(Arguments.of(format, c[0], c[1], c[2], c[3]));
        }
        return result.stream();
    }

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @MethodSource("rejections")
    void shouldRejectWithTheContractCode(Format format, String what, ErrorCode code, byte[] key, ObjectNode event) {
        Decoded decoded = decode(format, key, event);

        assertThat(decoded.accepted()).isFalse();
        assertThat(decoded.code()).as(decoded.message()).isEqualTo(code);
        assertThat(decoded.message()).isNotBlank();
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void shouldCheckIdsBeforeTheKeyAndTheKeyBeforeThePayload(Format format) {
        ObjectNode badIdAndNoPayload = with(closed(), e -> e.put("event_id", "e 1").remove("closed"));
        ObjectNode noPayload = with(closed(), e -> e.remove("closed"));

        assertThat(decode(format, bytes("x/y"), badIdAndNoPayload).code()).isEqualTo(ErrorCode.INVALID_ID);
        assertThat(decode(format, bytes("x/y"), noPayload).code()).isEqualTo(ErrorCode.KEY_MISMATCH);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void shouldNameTheFieldButQuoteAtMostAnExcerpt(Format format) {
        Decoded decoded = decode(format, KEY, with(userTurn(), e -> turnOf(e).put("agent", "é".repeat(10_000))));

        assertThat(decoded.code()).isEqualTo(ErrorCode.INVALID_NAME);
        assertThat(decoded.message()).startsWith("turn.agent '").contains("(10000 characters)").hasSizeLessThan(300);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void shouldRejectAnOversizedRecordBeforeParsingIt(Format format) {
        SessionEventDecoder decoder = format.decoder(registry, 100);
        byte[] garbage = "x".repeat(101).getBytes(StandardCharsets.UTF_8);

        Decoded decoded = decoder.decode(KEY, garbage);
        Decoded justFits = decoder.decode(KEY, "x".repeat(100 - KEY.length).getBytes(StandardCharsets.UTF_8));

        assertThat(decoded.code()).isEqualTo(ErrorCode.OVERSIZED);
        assertThat(decoded.message()).contains("106 bytes").contains("limit is 100");
        assertThat(justFits.code()).isEqualTo(ErrorCode.MALFORMED);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void shouldRejectANullValueAsMalformed(Format format) {
        assertThat(format.decoder(registry, 1000).decode(KEY, null).code()).isEqualTo(ErrorCode.MALFORMED);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

}
