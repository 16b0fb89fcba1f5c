package dev.baton.topology;

import dev.baton.processor.SessionContextProcessor;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Control records at the decoder: the backfill's {@code commit} signal asks Kafka Streams for a commit and goes
 * nowhere; a {@code settle} (one per session at the end of a backfill) does not ask for one, so a file of many
 * sessions does not pay a commit per session.
 */
class DecodeProcessorControlTest {
    private static final String SESSION_KEY = "acme/s1";

    private static MockProcessorContext<String, Object> processControl(byte[] key, String signal) {
        MockProcessorContext<String, Object> context = new MockProcessorContext<>();
        // the decoder is not consulted for control records
        DecodeProcessor decode = new DecodeProcessor(null, "sessions", "dead-letters");
        decode.init(context);
        RecordHeaders headers = new RecordHeaders();
        headers.add(SessionContextProcessor.CONTROL_HEADER, signal.getBytes(StandardCharsets.UTF_8));
        decode.process(new Record<>(key, new byte[0], 0L, headers));
        return context;
    }

    @Test
    void shouldRequestACommitAndForwardNothingOnTheCommitSignal() {
        MockProcessorContext<String, Object> context = processControl(null, SessionContextProcessor.COMMIT);

        assertThat(context.committed()).isTrue();
        assertThat(context.forwarded()).isEmpty();
    }

    @Test
    void shouldPassASettleOnWithoutRequestingACommit() {
        MockProcessorContext<String, Object> context =
            processControl(SESSION_KEY.getBytes(StandardCharsets.UTF_8), SessionContextProcessor.SETTLE);

        assertThat(context.committed()).isFalse();
        assertThat(context.forwarded()).singleElement().satisfies(f -> {
            assertThat(f.childName()).contains("sessions");
            assertThat(f.record().key()).isEqualTo(SESSION_KEY);
        });
    }

    @Test
    void shouldDeadLetterAnUnknownSignalWithoutRequestingACommit() {
        MockProcessorContext<String, Object> context =
            processControl(SESSION_KEY.getBytes(StandardCharsets.UTF_8), "flush");

        assertThat(context.committed()).isFalse();
        assertThat(context.forwarded()).singleElement()
            .satisfies(f -> assertThat(f.childName()).contains("dead-letters"));
    }
}
