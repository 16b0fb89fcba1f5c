package dev.baton.deadletter;

import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class DeadLettersTest {

    @Test
    void shouldForwardTheOriginalBytesWithCodeMessageAndSourceToTheDeadLetterChild() {
        MockProcessorContext<String, Object> context = new MockProcessorContext<>();
        context.setRecordMetadata("baton.session-events", 2, 17L);
        DeadLetters.forward(context, "dead-letters", 99L, bytes("k"), bytes("v"), ErrorCode.LATE_TURN, "too late");

        assertThat(context.forwarded()).singleElement().satisfies(f -> {
            assertThat(f.childName()).contains("dead-letters");
            assertThat(f.record().timestamp()).isEqualTo(99L);
            DeadLetter dl = (DeadLetter) f.record().value();
            assertThat(dl.key()).isEqualTo(bytes("k"));
            assertThat(dl.value()).isEqualTo(bytes("v"));
            assertThat(dl.code()).isEqualTo("LATE_TURN");
            assertThat(dl.message()).isEqualTo("too late");
            assertThat(dl.sourceTopic()).isEqualTo("baton.session-events");
            assertThat(dl.sourcePartition()).isEqualTo(2);
            assertThat(dl.sourceOffset()).isEqualTo(17L);
        });
        assertThat(DeadLetters.sourceOf(context)).isEqualTo("baton.session-events-2@17");
    }

    @Test
    void shouldWriteAnUnknownSourceAsAnEmptyTopicAndMinusOne() {
        ProcessorContext<String, Object> context = new MockProcessorContext<>(); // e.g. during punctuation
        DeadLetter dl = DeadLetters.of(context, null, null, ErrorCode.INTERNAL, "boom");
        assertThat(dl.sourceTopic()).isNull();
        assertThat(dl.sourcePartition()).isEqualTo(-1);
        assertThat(dl.sourceOffset()).isEqualTo(-1L);
        assertThat(DeadLetters.sourceOf(context)).isEqualTo("?");

        Headers headers = DeadLetterHeaders.of(dl);
        assertThat(text(headers, DeadLetterHeaders.CODE)).isEqualTo("INTERNAL");
        assertThat(text(headers, DeadLetterHeaders.SOURCE_TOPIC)).isEmpty();
        assertThat(text(headers, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("-1");
        assertThat(text(headers, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("-1");
    }

    @Test
    void shouldCutALongMessageInTheHeaders() {
        Headers headers = DeadLetterHeaders.of("MALFORMED", "x".repeat(5_000), "t", 0, 0);
        assertThat(text(headers, DeadLetterHeaders.MESSAGE)).hasSize(DeadLetterHeaders.MAX_MESSAGE_CHARS + 1)
                .endsWith("x…");
    }

    @Test
    void shouldCallRetriableAndMarkedFailuresTransientAnywhereInTheCauseChain() {
        class Unreachable extends RuntimeException implements TransientFailure {
            private static final long serialVersionUID = 1L;
        }
        assertThat(DeadLetters.isTransient(new TimeoutException("slow"))).isTrue();
        assertThat(DeadLetters.isTransient(new Unreachable())).isTrue();
        assertThat(DeadLetters.isTransient(new IllegalStateException("wrapped", new Unreachable()))).isTrue();
        assertThat(DeadLetters.isTransient(new RuntimeException(new RetriableException("wrapped") {
        }))).isTrue();
        assertThat(DeadLetters.isTransient(new IllegalStateException("a bug"))).isFalse();
        assertThat(DeadLetters.isTransient(new IllegalStateException("a bug", new IllegalArgumentException())))
                .isFalse();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Headers headers, String key) {
        return new String(headers.lastHeader(key).value(), StandardCharsets.UTF_8);
    }
}
