package dev.baton.topology;

import dev.baton.processor.LogContext;
import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.ErrorCode;
import dev.baton.processor.DeadLetterCounter;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;

/**
 * Safety net for an exception that escapes a processor (the processors catch per record themselves, so this sees
 * only what they do not expect, e.g. a snapshot that cannot be encoded). Uses Kafka Streams' dead-letter support
 * (KIP-1034): the response carries a dead-letter record for {@code errors.dead.letter.queue.topic.name} (Baton sets
 * it to the dead-letter topic) made of the <em>input</em> record's original bytes with the contract's headers, code
 * {@link ErrorCode#INTERNAL}; processing then resumes with the next record. A transient failure
 * ({@link DeadLetters#isTransient}: a schema registry that cannot be reached, any Kafka {@code RetriableException})
 * fails the task instead: the record is never dead-lettered; {@code StreamsApp}'s uncaught-exception handler
 * ({@code dev.baton.app.StreamThreadFailures}) replaces the stream thread after a backoff, which retries it from the
 * last commit. Registered by
 * {@link BatonTopology#streamsProperties}.
 */
public class BatonProcessingExceptionHandler implements ProcessingExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(BatonProcessingExceptionHandler.class);
    private String deadLetterTopic;
    private DeadLetterCounter deadLetters = new DeadLetterCounter();

    private long maxRequestSize = 1024 * 1024;

    @Override
    public void configure(Map<String, ?> configs) {
        maxRequestSize = maxRequestSize(configs);
        Object topic = configs.get(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG);
        deadLetterTopic = topic == null ? null : topic.toString();
        deadLetters = DeadLetterCounter.from(configs);
    }

    static long maxRequestSize(Map<String, ?> configs) {
        Object v = configs.get(org.apache.kafka.clients.producer.ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        try {
            return v == null ? 1024 * 1024 : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            return 1024 * 1024;
        }
    }

    @SuppressWarnings("try") // the log context is for the log line inside: not read in the block
    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        if (DeadLetters.isTransient(exception)) {
            // an unreachable dependency says nothing about the record: fail, Kafka Streams retries it later
            LOG.error("Dependency unavailable in {}; failing the task to retry", context.processorNodeId(), exception);
            return Response.fail();
        }
        try (LogContext log = LogContext.empty().with(LogContext.DEAD_LETTER_CODE, ErrorCode.INTERNAL.name())
                .traceOf(context.headers())) {
            LOG.error("Unexpected failure in {} on {}-{}@{}; dead-lettered as INTERNAL", context.processorNodeId(),
                    context.topic(), context.partition(), context.offset(), exception);
        }
        if (deadLetterTopic == null) return Response.resume();
        deadLetters.count(context.taskId(), ErrorCode.INTERNAL);
        return Response.resume(List.of(DeadLetters.bounded(DeadLetters.fromErrorContext(deadLetterTopic, context,
                ErrorCode.INTERNAL, "in " + context.processorNodeId() + ": " + exception), maxRequestSize)));
    }
}
