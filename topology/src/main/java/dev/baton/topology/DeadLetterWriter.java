package dev.baton.topology;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import dev.baton.processor.BatonMetrics;
import dev.baton.processor.DeadLetter;
import dev.baton.processor.ErrorCode;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Turns a {@link DeadLetter} into the dead-letter topic's record: the original key and value bytes, the contract's
 * headers ({@link DeadLetterHeaders}). Every dead letter of the topology passes here, so this is where they are
 * counted ({@code dead-letters-total} per code).
 */
public final class DeadLetterWriter implements Processor<String, DeadLetter, byte[], byte[]> {
    /** The most of an OVERSIZED record's value its dead letter carries (CONTRACT.md §4 "Bounded records"). */
    public static final int EXCERPT_BYTES = 64 * 1024;
    /** Header of a dead letter whose value was cut: the original value's size in bytes (decimal text). */
    public static final String ORIGINAL_SIZE = "baton.error.original-size";

    private final int maxOutputBytes;
    private ProcessorContext<byte[], byte[]> context;
    private BatonMetrics metrics;

    public DeadLetterWriter() {
        this(Integer.MAX_VALUE);
    }

    /** @param maxOutputBytes {@code baton.max-output-bytes} */
    public DeadLetterWriter(int maxOutputBytes) {
        this.maxOutputBytes = maxOutputBytes;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.metrics = new BatonMetrics(context.metrics(), context.taskId().toString(), "dead-letters");
    }

    @Override
    public void process(Record<String, DeadLetter> record) {
        DeadLetter dl = record.value();
        Headers headers = DeadLetterHeaders.of(dl);
        byte[] value = dl.value();
        // An OVERSIZED record's dead letter carries its first 64 KiB; so does any dead letter that would not fit the
        // limit whole (a value accepted under a larger max-record-bytes), so that no dead letter is ever refused.
        if (value != null && value.length > EXCERPT_BYTES && (ErrorCode.OVERSIZED.name().equals(dl.code())
                || RecordLimit.sizeOf(dl.key(), value, headers) > maxOutputBytes)) {
            headers.add(ORIGINAL_SIZE, Integer.toString(value.length).getBytes(StandardCharsets.UTF_8));
            value = Arrays.copyOf(value, EXCERPT_BYTES);
        }
        byte[] key = dl.key();
        if (key != null && key.length > EXCERPT_BYTES) key = Arrays.copyOf(key, EXCERPT_BYTES);
        context.forward(new Record<>(key, value, record.timestamp(), headers));
        metrics.deadLetter(codeOf(dl.code()));
    }

    private static ErrorCode codeOf(String code) {
        try {
            return ErrorCode.valueOf(code);
        } catch (IllegalArgumentException e) {
            return ErrorCode.INTERNAL;
        }
    }

    @Override
    public void close() {
        if (metrics != null) metrics.close();
    }
}
