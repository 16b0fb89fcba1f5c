package dev.baton.deadletter;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Headers;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The one place that turns a record into a dead letter, and that decides whether a failure is transient.
 *
 * <ul>
 *   <li>a processor that rejects its input ({@link #forward}): a {@link DeadLetter} with the original key and value
 *       bytes, the code, the message and the source coordinates of the record being processed, sent to the
 *       topology's dead-letter writer (which writes it with {@link DeadLetterHeaders} and counts it);</li>
 *   <li>Kafka Streams' exception handlers ({@link #fromErrorContext}): a producer record for Kafka's own dead-letter
 *       queue (KIP-1034), made of the input record's original bytes with the same headers;</li>
 *   <li>{@link #isTransient}: a Kafka {@link RetriableException} or a {@link TransientFailure} anywhere in the cause
 *       chain. Such a failure is never dead-lettered: the task fails and the record is retried.</li>
 * </ul>
 */
public final class DeadLetters {

    /** The most of an OVERSIZED record's value its dead letter carries (docs/contract.md, "Bounded records"). */
    public static final int EXCERPT_BYTES = 64 * 1024;

    private DeadLetters() {
    }

    /**
     * The value a dead letter carries: an OVERSIZED record's first {@value #EXCERPT_BYTES} bytes, and so for any
     * dead letter that would not fit {@code limit} whole (a record accepted under a larger limit), with the header
     * {@link DeadLetterHeaders#ORIGINAL_SIZE} added to {@code headers}; otherwise the value as it is.
     */
    public static byte[] boundedValue(String code, byte[] key, byte[] value, Headers headers, long limit) {
        if (value == null || value.length <= EXCERPT_BYTES) return value;
        if (!ErrorCode.OVERSIZED.name().equals(code) && RecordLimit.sizeOf(key, value, headers) <= limit) return value;
        headers.add(DeadLetterHeaders.ORIGINAL_SIZE, Integer.toString(value.length).getBytes(StandardCharsets.UTF_8));
        return Arrays.copyOf(value, EXCERPT_BYTES);
    }

    /** A key is cut to {@value #EXCERPT_BYTES} too (a key is part of a record's size as much as its value). */
    public static byte[] boundedKey(byte[] key) {
        return key == null || key.length <= EXCERPT_BYTES ? key : Arrays.copyOf(key, EXCERPT_BYTES);
    }

    /** An exception handler's dead letter, bounded as {@link #boundedValue} says (code from its headers). */
    public static ProducerRecord<byte[], byte[]> bounded(ProducerRecord<byte[], byte[]> dl, long limit) {
        var codeHeader = dl.headers().lastHeader(DeadLetterHeaders.CODE);
        String code = codeHeader == null ? "" : new String(codeHeader.value(), StandardCharsets.UTF_8);
        byte[] value = boundedValue(code, dl.key(), dl.value(), dl.headers(), limit);
        byte[] key = boundedKey(dl.key());
        if (value == dl.value() && key == dl.key()) return dl;
        return new ProducerRecord<>(dl.topic(), null, key, value, dl.headers());
    }

    /**
     * Dead-letters the record {@code context} is processing: a {@link DeadLetter} of {@code key} and {@code value}
     * (the original bytes), forwarded to {@code deadLetterChild}.
     */
    public static void forward(ProcessorContext<String, Object> context, String deadLetterChild, long timestamp,
                               byte[] key, byte[] value, ErrorCode code, String message) {
        context.forward(new Record<String, Object>(null, of(context, key, value, code, message), timestamp,
                new RecordHeaders()), deadLetterChild);
    }

    /** A dead letter of {@code key} and {@code value}, its source the record {@code context} is processing. */
    public static DeadLetter of(ProcessorContext<?, ?> context, byte[] key, byte[] value, ErrorCode code,
                                String message) {
        RecordMetadata meta = context.recordMetadata().orElse(null);
        return new DeadLetter(key, value, code.name(), message, meta == null ? null : meta.topic(),
                meta == null ? -1 : meta.partition(), meta == null ? -1L : meta.offset());
    }

    /**
     * The dead letter an exception handler answers with: the input record's original bytes, code {@code code},
     * for {@code topic}.
     */
    public static ProducerRecord<byte[], byte[]> fromErrorContext(String topic, ErrorHandlerContext context,
                                                                  ErrorCode code, String message) {
        return new ProducerRecord<>(topic, null, context.sourceRawKey(), context.sourceRawValue(),
                DeadLetterHeaders.of(code.name(), message, context.topic(), context.partition(), context.offset()));
    }

    /** {@code topic-partition@offset} of the record {@code context} is processing, {@code ?} when there is none. */
    public static String sourceOf(ProcessorContext<?, ?> context) {
        return context.recordMetadata().map(m -> m.topic() + "-" + m.partition() + "@" + m.offset()).orElse("?");
    }

    /**
     * True when {@code e} or one of its causes is a Kafka {@link RetriableException} or a {@link TransientFailure}:
     * something outside the record failed, so it must be retried, never dead-lettered.
     */
    public static boolean isTransient(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RetriableException || t instanceof TransientFailure) return true;
            if (t.getCause() == t) break;
        }
        return false;
    }
}
