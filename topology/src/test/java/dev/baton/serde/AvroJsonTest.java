package dev.baton.serde;

import dev.baton.avro.Role;
import dev.baton.avro.SessionEvent;
import dev.baton.avro.StepStatus;
import dev.baton.avro.Target;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AvroJsonTest {

    private static SessionEvent read(String json) {
        return AvroJson.read(json.getBytes(StandardCharsets.UTF_8), SessionEvent.class);
    }

    private static String turnWithArguments(String arguments) {
        return "{\"event_id\":\"e1\",\"tenant_id\":\"t\",\"session_id\":\"s\",\"occurred_at\":\"2026-01-31T12:00:00.250Z\","
                + "\"turn\":{\"seq\":0,\"agent\":\"a\",\"role\":\"ASSISTANT\",\"text\":\"\",\"trail\":[{\"call_id\":\"c\","
                + "\"tool\":\"t\",\"arguments\":" + arguments + ",\"status\":\"OK\"}]}}";
    }

    @Test
    void shouldKeepArgumentsExactlyAsReceived() {
        String arguments = "{ \"z\": 1.0, \"a\": 1e5, \"m\": [1, -0.50E+2], \"s\": \"héllo ✓ \\u00e9\\n\", \"n\": null }";

        SessionEvent event = read(turnWithArguments(arguments));

        assertThat(event.getTurn().getTrail().get(0).getArguments()).isEqualTo(arguments);
    }

    @Test
    void shouldKeepArgumentsExactWhenTheyStartFarIntoALargeValue() {
        String arguments = "{\"k\": \"" + "v".repeat(70_000) + "\", \"n\": 2.50}";
        String json = turnWithArguments(arguments).replace("\"text\":\"\"", "\"text\":\"" + "é".repeat(50_000) + "\"");

        SessionEvent event = read(json);

        assertThat(event.getTurn().getTrail().get(0).getArguments()).isEqualTo(arguments);
    }

    @Test
    void shouldAcceptArgumentsAsAStringHoldingAnObject() {
        SessionEvent event = read(turnWithArguments("\"{\\\"b\\\": 2, \\\"a\\\": 1.50}\""));

        assertThat(event.getTurn().getTrail().get(0).getArguments()).isEqualTo("{\"b\": 2, \"a\": 1.50}");
    }

    @Test
    void shouldPassOtherArgumentValuesOnAsText() {
        assertThat(read(turnWithArguments("[1,2]")).getTurn().getTrail().get(0).getArguments()).isEqualTo("[1,2]");
        assertThat(read(turnWithArguments("12")).getTurn().getTrail().get(0).getArguments()).isEqualTo("12");
    }

    @Test
    void shouldAcceptLowerCaseEnumSymbolsAndIsoInstants() {
        SessionEvent event = read("{\"event_id\":\"e\",\"tenant_id\":\"t\",\"session_id\":\"s\","
                + "\"occurred_at\":\"2026-01-31T14:00:00+02:00\",\"handoff\":{\"handoff_id\":\"h\",\"to_agent\":\"b\","
                + "\"target\":\"claude_cli\"}}");

        assertThat(event.getHandoff().getTarget()).isEqualTo(Target.CLAUDE_CLI);
        assertThat(event.getOccurredAt()).isEqualTo(Instant.parse("2026-01-31T12:00:00Z"));
        assertThat(event.getHandoff().getFromAgent()).isNull();
        assertThat(event.getTurn()).isNull();
        assertThat(read(turnWithArguments("{}").replace("\"ASSISTANT\"", "\"assistant\"").replace("\"OK\"", "\"cleared\""))
                .getTurn()).satisfies(t -> {
                    assertThat(t.getRole()).isEqualTo(Role.ASSISTANT);
                    assertThat(t.getTrail().get(0).getStatus()).isEqualTo(StepStatus.CLEARED);
                });
    }

    @Test
    void shouldRejectMixedCaseAndUnknownSymbolsAsInvalidField() {
        assertThatThrownBy(() -> read(turnWithArguments("{}").replace("\"ASSISTANT\"", "\"Robot\"")))
                .isInstanceOfSatisfying(JsonReadException.class, e -> {
                    assertThat(e.kind()).isEqualTo(JsonReadException.Kind.INVALID_FIELD);
                    assertThat(e.path()).isEqualTo("turn.role");
                    assertThat(e).hasMessageContaining("'Robot'");
                });
    }

    @Test
    void shouldNameAMissingRequiredField() {
        assertThatThrownBy(() -> read(turnWithArguments("{}").replace("\"text\":\"\",", "")))
                .isInstanceOfSatisfying(JsonReadException.class, e -> {
                    assertThat(e.kind()).isEqualTo(JsonReadException.Kind.INVALID_FIELD);
                    assertThat(e).hasMessage("turn.text: missing required field");
                });
    }

    @Test
    void shouldReportUnreadableJsonAsMalformed() {
        for (String bad : new String[]{"", "[1]", "{\"event_id\":", "{} {}", "{\"a\":1,\"a\":2}", "nul"}) {
            assertThatThrownBy(() -> read(bad)).as(bad).isInstanceOfSatisfying(JsonReadException.class,
                    e -> assertThat(e.kind()).isEqualTo(JsonReadException.Kind.MALFORMED));
        }
        assertThatThrownBy(() -> AvroJson.read(new byte[]{'{', (byte) 0xff, '}'}, SessionEvent.class))
                .isInstanceOfSatisfying(JsonReadException.class, e -> assertThat(e).hasMessageContaining("UTF-8"));
    }

    @Test
    void shouldWriteFieldsInSchemaOrderWithArgumentsAsObjectsAndInstantsAsIso() {
        SessionEvent event = read(turnWithArguments("{\"z\":1.0,\"a\":\"é\"}"));

        String json = AvroJson.writeString(event);

        assertThat(json).isEqualTo("{\"event_id\":\"e1\",\"tenant_id\":\"t\",\"session_id\":\"s\","
                + "\"occurred_at\":\"2026-01-31T12:00:00.250Z\",\"turn\":{\"seq\":0,\"agent\":\"a\",\"role\":\"ASSISTANT\","
                + "\"text\":\"\",\"trail\":[{\"call_id\":\"c\",\"tool\":\"t\",\"arguments\":{\"z\":1.0,\"a\":\"é\"},"
                + "\"result\":null,\"status\":\"OK\"}],\"tool_calls\":[],\"tool_call_id\":null,\"provider\":null,"
                + "\"model\":null},\"handoff\":null,\"closed\":null}");
        assertThat(read(json)).isEqualTo(event);
    }
}
