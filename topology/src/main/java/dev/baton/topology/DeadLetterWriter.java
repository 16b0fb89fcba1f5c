package dev.baton.topology;

import dev.baton.deadletter.DeadLetter;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.ErrorCode;
import dev.baton.processor.DeadLetterCounter;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Turns a {@link DeadLetter} into the dead-letter topic's record: the original key and value bytes, the contract's
 * headers ({@link DeadLetterHeaders}). Counts each in {@link DeadLetterCounter}, which the exception handlers share
 * for the dead letters they hand to Kafka Streams directly; this writer also registers the task there.
 */
public final class DeadLetterWriter implements Processor<String, DeadLetter, byte[], byte[]> {
    private final int maxOutputBytes;
    private ProcessorContext<byte[], byte[]> context;
    private DeadLetterCounter.Task counted;

    /** @param maxOutputBytes {@code baton.max-output-bytes} */
    public DeadLetterWriter(int maxOutputBytes) {
        this.maxOutputBytes = maxOutputBytes;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.counted = DeadLetterCounter.from(context.appConfigs()).register(context.metrics(), context.taskId());
    }

    @Override
    public void process(Record<String, DeadLetter> record) {
        DeadLetter dl = record.value();
        Headers headers = DeadLetterHeaders.of(dl);
        byte[] value = DeadLetters.boundedValue(dl.code(), dl.key(), dl.value(), headers, maxOutputBytes);
        byte[] key = DeadLetters.boundedKey(dl.key());
        context.forward(new Record<>(key, value, record.timestamp(), headers));
        counted.count(codeOf(dl.code()));
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
        if (counted != null) counted.close();
    }
}
