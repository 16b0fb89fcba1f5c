package dev.baton.topology;

import dev.baton.processor.LogContext;
import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.ErrorCode;
import dev.baton.processor.DeadLetterCounter;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;

/**
 * What to do when an output record cannot be written. Retriable errors are retried; an output the broker refuses
 * for itself (too large, invalid) dead-letters the <em>input</em> record that produced it, code {@code INTERNAL},
 * through Kafka Streams' dead-letter support (KIP-1034), and processing continues; every other error (authorization,
 * fencing, ...) stops the application as usual, since skipping would lose data. Registered by
 * {@link BatonTopology#streamsProperties}.
 */
public class BatonProductionExceptionHandler implements ProductionExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(BatonProductionExceptionHandler.class);
    private String deadLetterTopic;
    private DeadLetterCounter deadLetters = new DeadLetterCounter();

    private long maxRequestSize = 1024 * 1024;

    @Override
    public void configure(Map<String, ?> configs) {
        maxRequestSize = BatonProcessingExceptionHandler.maxRequestSize(configs);
        Object topic = configs.get(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG);
        deadLetterTopic = topic == null ? null : topic.toString();
        deadLetters = DeadLetterCounter.from(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record,
                                Exception exception) {
        if (exception instanceof RetriableException) return Response.retry();
        if (!(exception instanceof RecordTooLargeException || exception instanceof InvalidRecordException)) {
            return Response.fail();
        }
        return skip(context, record, "cannot write to " + record.topic() + ": " + exception);
    }

    @Override
    @SuppressWarnings("rawtypes") // the interface declares the record raw: an override cannot add type arguments
    public Response handleSerializationError(ErrorHandlerContext context, ProducerRecord record, Exception exception,
                                             SerializationExceptionOrigin origin) {
        return skip(context, record, "cannot serialize the " + origin + " for " + record.topic() + ": " + exception);
    }

    @SuppressWarnings("try") // the log context is for the log line inside: not read in the block
    private Response skip(ErrorHandlerContext context, ProducerRecord<?, ?> record, String message) {
        try (LogContext log = LogContext.empty().with(LogContext.DEAD_LETTER_CODE, ErrorCode.INTERNAL.name())
                .traceOf(context.headers())) {
            LOG.error("Output record for {} dropped, input {}-{}@{} dead-lettered as INTERNAL: {}", record.topic(),
                    context.topic(), context.partition(), context.offset(), message);
        }
        // never answer a failed dead letter with another dead letter
        if (deadLetterTopic == null || deadLetterTopic.equals(record.topic())) return Response.resume();
        deadLetters.count(context.taskId(), ErrorCode.INTERNAL);
        return Response.resume(List.of(DeadLetters.bounded(DeadLetters.fromErrorContext(deadLetterTopic, context,
                ErrorCode.INTERNAL, message), maxRequestSize)));
    }
}
