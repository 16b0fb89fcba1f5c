package dev.baton.topology;

import dev.baton.deadletter.DeadLetter;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.deadletter.ErrorCode;
import dev.baton.processor.BatonMetrics;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Turns a {@link DeadLetter} into the dead-letter topic's record: the original key and value bytes, the contract's
 * headers ({@link DeadLetterHeaders}). Every dead letter of the topology passes here, so this is where they are
 * counted ({@code dead-letters-total} per code).
 */
public final class DeadLetterWriter implements Processor<String, DeadLetter, byte[], byte[]> {
    private ProcessorContext<byte[], byte[]> context;
    private BatonMetrics metrics;

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.metrics = new BatonMetrics(context.metrics(), context.taskId().toString(), "dead-letters");
    }

    @Override
    public void process(Record<String, DeadLetter> record) {
        DeadLetter dl = record.value();
        context.forward(new Record<>(dl.key(), dl.value(), record.timestamp(), DeadLetterHeaders.of(dl)));
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
