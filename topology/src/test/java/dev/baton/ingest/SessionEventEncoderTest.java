package dev.baton.ingest;

import dev.baton.serde.JsonReadException;
import dev.baton.serde.MockSchemaRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static dev.baton.ingest.SessionEventFixtures.KEY;
import static dev.baton.ingest.SessionEventFixtures.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SessionEventEncoderTest {
    private final String scope = "encoder-test-" + System.nanoTime();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    @Test
    void shouldProduceValuesTheDecoderOfTheSameFormatAccepts() {
        byte[] line = SessionEventFixtures.assistantTurn().toString().getBytes(StandardCharsets.UTF_8);

        Decoded viaAvro = SessionEventDecoder.avro(registry, 1 << 20).decode(KEY, SessionEventEncoder.avro(registry).encode(TOPIC, line));
        Decoded viaJson = SessionEventDecoder.json(1 << 20).decode(KEY, SessionEventEncoder.json().encode(TOPIC, line));

        assertThat(viaAvro.event().turn()).isEqualTo(viaJson.event().turn());
        assertThat(SessionEventEncoder.json().encode(TOPIC, line)).isSameAs(line);
    }

    @Test
    void shouldRefuseAnAvroConversionOfALineThatIsNoSessionEvent() {
        byte[] line = "{\"event_id\":\"e\"}".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> SessionEventEncoder.avro(registry).encode(TOPIC, line)).isInstanceOf(JsonReadException.class);
    }
}
