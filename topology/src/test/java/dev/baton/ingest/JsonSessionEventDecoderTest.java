package dev.baton.ingest;

import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static dev.baton.ingest.SessionEventFixtures.KEY;
import static org.assertj.core.api.Assertions.assertThat;

/** What only the JSON form can get wrong or right. */
class JsonSessionEventDecoderTest {
    private final SessionEventDecoder decoder = SessionEventDecoder.json(SessionEventDecoder.DEFAULT_MAX_RECORD_BYTES);

    private Decoded decode(String json) {
        return decoder.decode(KEY, json.getBytes(StandardCharsets.UTF_8));
    }

    private static String turn(String role, String extra) {
        return "{\"event_id\":\"e1\",\"tenant_id\":\"t1\",\"session_id\":\"s1\",\"occurred_at\":\"2026-01-31T12:00:00Z\","
                + "\"turn\":{\"seq\":0,\"agent\":\"a\",\"role\":\"" + role + "\",\"text\":\"x\"" + extra + "}}";
    }

    @Test
    void shouldKeepKeyOrderNumberLiteralsAndNonAsciiOfArguments() {
        Decoded d = decode(turn("assistant", ",\"trail\":[{\"call_id\":\"c\",\"tool\":\"t\",\"status\":\"error\","
                + "\"arguments\":{\n  \"zeta\": 1.0,\n  \"alpha\": 1e5,\n  \"text\": \"naïve 日本 \\u00e9\"\n}}]"));

        assertThat(d.accepted()).as(d.message()).isTrue();
        assertThat(d.event().turn().role()).isEqualTo(Role.ASSISTANT);
        assertThat(d.event().turn().trail().get(0).status()).isEqualTo(StepStatus.ERROR);
        assertThat(d.event().turn().trail().get(0).arguments())
                .isEqualTo("{\"zeta\":1.0,\"alpha\":1e5,\"text\":\"naïve 日本 \\u00e9\"}");
    }

    @Test
    void shouldAcceptLowerCaseTargets() {
        Decoded d = decode("{\"event_id\":\"e\",\"tenant_id\":\"t1\",\"session_id\":\"s1\",\"occurred_at\":0,"
                + "\"handoff\":{\"handoff_id\":\"h\",\"to_agent\":\"b\",\"target\":\"claude_cli\",\"brief\":\"\"}}");

        assertThat(d.event().handoff().target()).isEqualTo(Target.CLAUDE_CLI);
        assertThat(d.event().handoff().brief()).isNull();
        assertThat(d.event().occurredAtMillis()).isZero();
    }

    @Test
    void shouldRejectUnreadableJsonAsMalformed() {
        for (String bad : new String[]{"not json", "[]", "{\"event_id\":\"e1\"", turn("USER", "") + "x", "{\"turn\":{}} {}"}) {
            assertThat(decode(bad).code()).as(bad).isEqualTo(ErrorCode.MALFORMED);
        }
    }

    @Test
    void shouldRejectUnknownSymbolsMissingFieldsAndWrongTypesAsInvalidField() {
        Decoded unknownRole = decode(turn("ROBOT", ""));
        Decoded unknownStatus = decode(turn("ASSISTANT", ",\"trail\":[{\"call_id\":\"c\",\"tool\":\"t\",\"arguments\":{},\"status\":\"MAYBE\"}]"));
        Decoded missingText = decode(turn("USER", "").replace(",\"text\":\"x\"", ""));
        Decoded missingOccurredAt = decode(turn("USER", "").replace("\"occurred_at\":\"2026-01-31T12:00:00Z\",", ""));
        Decoded stringSeq = decode(turn("USER", "").replace("\"seq\":0", "\"seq\":\"0\""));
        Decoded nullAgent = decode(turn("USER", "").replace("\"agent\":\"a\"", "\"agent\":null"));
        Decoded badInstant = decode(turn("USER", "").replace("2026-01-31T12:00:00Z", "yesterday"));

        assertThat(unknownRole.code()).isEqualTo(ErrorCode.INVALID_FIELD);
        assertThat(unknownRole.message()).contains("turn.role").contains("ROBOT");
        assertThat(unknownStatus.code()).isEqualTo(ErrorCode.INVALID_FIELD);
        assertThat(missingText.code()).isEqualTo(ErrorCode.INVALID_FIELD);
        assertThat(missingText.message()).isEqualTo("turn.text: missing required field");
        assertThat(missingOccurredAt.message()).isEqualTo("occurred_at: missing required field");
        assertThat(stringSeq.code()).isEqualTo(ErrorCode.INVALID_FIELD);
        assertThat(nullAgent.message()).isEqualTo("turn.agent: must not be null");
        assertThat(badInstant.message()).contains("ISO-8601");
    }
}
