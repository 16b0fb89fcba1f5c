package dev.baton.cli.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

class DeadLetterRecordTest {

    private static DeadLetterRecord record(byte[] key, byte[] value) {
        return new DeadLetterRecord(2, 7, 0L, "MALFORMED", "m", "in", "1", "4", null, key, value);
    }

    @Test
    void shouldShowUtf8AsTextAndOtherBytesAsHexOrBase64() {
        byte[] bad = {(byte) 0xc3, 0x28};
        assertThat(DeadLetterRecord.show("é{}".getBytes(StandardCharsets.UTF_8), DeadLetterRecord.Bytes.hex)).isEqualTo("é{}");
        assertThat(DeadLetterRecord.show(bad, DeadLetterRecord.Bytes.hex)).isEqualTo("hex:c328");
        assertThat(DeadLetterRecord.show(bad, DeadLetterRecord.Bytes.base64)).isEqualTo("base64:wyg=");
        assertThat(DeadLetterRecord.show(null, DeadLetterRecord.Bytes.hex)).isEqualTo("(null)");
    }

    @Test
    void shouldWriteJsonWithTheEncodingInTheFieldName() throws Exception {
        var node = new ObjectMapper().readTree(record("acme/s1".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xff})
                .toJson(DeadLetterRecord.Bytes.base64));
        assertThat(node.get("key").asText()).isEqualTo("acme/s1");
        assertThat(node.get("value_base64").asText()).isEqualTo("/w==");
        assertThat(node.has("value")).isFalse();
        assertThat(node.get("partition").asInt()).isEqualTo(2);
    }

    @Test
    void shouldTakeTheTenantFromTheKey() {
        assertThat(record("acme/s1".getBytes(StandardCharsets.UTF_8), null).tenant()).isEqualTo("acme");
        assertThat(record("no-slash".getBytes(StandardCharsets.UTF_8), null).tenant()).isNull();
        assertThat(record(null, null).tenant()).isNull();
        assertThat(record(null, null).position()).isEqualTo("2/7");
    }

    @Test
    void shouldReadShortAndIsoDurations() {
        assertThat(Durations.parse("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("15m")).isEqualTo(Duration.ofMinutes(15));
        assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(Durations.parse("PT5M")).isEqualTo(Duration.ofMinutes(5));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Durations.parse("soon"))
                .hasMessageContaining("not a duration");
    }
}
