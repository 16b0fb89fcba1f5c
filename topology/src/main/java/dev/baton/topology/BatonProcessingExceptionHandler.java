package dev.baton.topology;

import dev.baton.processor.ErrorCode;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
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
 * {@link ErrorCode#INTERNAL}; processing then resumes with the next record. A transient failure (a schema registry
 * that cannot be reached, any Kafka {@code RetriableException}) fails the task instead: the record is retried after
 * the restart, never dead-lettered.
 */
public class BatonProcessingExceptionHandler implements ProcessingExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(BatonProcessingExceptionHandler.class);
    private String deadLetterTopic;

    private long maxRequestSize = 1024 * 1024;

    @Override
    public void configure(Map<String, ?> configs) {
        maxRequestSize = maxRequestSize(configs);
        Object topic = configs.get(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG);
        deadLetterTopic = topic == null ? null : topic.toString();
    }

    /**
     * The dead letter, its value cut to its first {@link DeadLetterWriter#EXCERPT_BYTES} (with header
     * {@value DeadLetterWriter#ORIGINAL_SIZE}) should it not fit {@code limit} whole.
     */
    static ProducerRecord<byte[], byte[]> fitted(ProducerRecord<byte[], byte[]> dl, long limit) {
        if (dl.value() == null || dl.value().length <= DeadLetterWriter.EXCERPT_BYTES
                || RecordLimit.sizeOf(dl.key(), dl.value(), dl.headers()) <= limit) return dl;
        dl.headers().add(DeadLetterWriter.ORIGINAL_SIZE,
                Integer.toString(dl.value().length).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return new ProducerRecord<>(dl.topic(), null, dl.key(),
                java.util.Arrays.copyOf(dl.value(), DeadLetterWriter.EXCERPT_BYTES), dl.headers());
    }

    static long maxRequestSize(Map<String, ?> configs) {
        Object v = configs.get(org.apache.kafka.clients.producer.ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        try {
            return v == null ? 1024 * 1024 : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            return 1024 * 1024;
        }
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        if (isTransient(exception)) {
            // an unreachable dependency says nothing about the record: fail, Kafka Streams retries it later
            LOG.error("Dependency unavailable in {}; failing the task to retry", context.processorNodeId(), exception);
            return Response.fail();
        }
        LOG.error("Unexpected failure in {} on {}-{}@{}; dead-lettered as INTERNAL", context.processorNodeId(),
                context.topic(), context.partition(), context.offset(), exception);
        if (deadLetterTopic == null) return Response.resume();
        return Response.resume(List.of(fitted(deadLetter(deadLetterTopic, context,
                "in " + context.processorNodeId() + ": " + exception), maxRequestSize)));
    }

    static boolean isTransient(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RetriableException || t instanceof SchemaRegistryUnavailableException) return true;
            if (t.getCause() == t) break;
        }
        return false;
    }

    static ProducerRecord<byte[], byte[]> deadLetter(String topic, ErrorHandlerContext context, String message) {
        return new ProducerRecord<>(topic, null, context.sourceRawKey(), context.sourceRawValue(),
                DeadLetterHeaders.of(ErrorCode.INTERNAL.name(), message, context.topic(), context.partition(),
                        context.offset()));
    }
}
