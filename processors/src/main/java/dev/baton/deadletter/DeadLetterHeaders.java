package dev.baton.deadletter;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;

/**
 * The contract's dead-letter headers (docs/contract.md, "Dead letters"), all UTF-8 text: {@value #CODE},
 * {@value #MESSAGE}, {@value #SOURCE_TOPIC}, {@value #SOURCE_PARTITION} and {@value #SOURCE_OFFSET} (decimal). A
 * source that is unknown (no input record, e.g. a failure during punctuation) is written as an empty topic and -1.
 */
public final class DeadLetterHeaders {
    public static final String CODE = "baton.error.code";
    public static final String MESSAGE = "baton.error.message";
    public static final String SOURCE_TOPIC = "baton.source.topic";
    public static final String SOURCE_PARTITION = "baton.source.partition";
    public static final String SOURCE_OFFSET = "baton.source.offset";
    /** On a dead letter whose value was cut to its first {@link DeadLetters#EXCERPT_BYTES}: the original size. */
    public static final String ORIGINAL_SIZE = "baton.error.original-size";

    /** Longer messages are cut: headers travel with every dead letter and must stay small. */
    static final int MAX_MESSAGE_CHARS = 1_000;

    private DeadLetterHeaders() {
    }

    public static Headers of(DeadLetter dl) {
        return of(dl.code(), dl.message(), dl.sourceTopic(), dl.sourcePartition(), dl.sourceOffset());
    }

    public static Headers of(String code, String message, String topic, int partition, long offset) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(CODE, utf8(code));
        String m = message == null ? "" : message;
        if (m.length() > MAX_MESSAGE_CHARS) m = m.substring(0, MAX_MESSAGE_CHARS) + "…";
        headers.add(MESSAGE, utf8(m));
        headers.add(SOURCE_TOPIC, utf8(topic == null ? "" : topic));
        headers.add(SOURCE_PARTITION, utf8(Integer.toString(partition)));
        headers.add(SOURCE_OFFSET, utf8(Long.toString(offset)));
        return headers;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
