package dev.baton.topology;

import dev.baton.processor.LogContext;
import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.model.SessionKey;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.processor.DependencyUnavailableException;
import dev.baton.processor.HandoffTracing;
import dev.baton.processor.InboundEvent;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.processor.SessionProvenance;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * First node after the source: reads the record with the {@link SessionEventDecoder} (which checks, in order, the
 * size, the bytes, the schema, the key against the value's {@code tenant_id/session_id} and every field). Accepted
 * events go to the session processor keyed by the session key; rejections go to the dead-letter writer with the
 * original bytes and the source coordinates. A schema registry that cannot be reached fails the task instead (the
 * record is retried, never dead-lettered).
 *
 * <p>Control records (header {@code baton.control}) are not events: a {@code settle} signal is passed on to the
 * session processor with a null value; a {@code commit} signal (the backfill's last record of each partition, any
 * key) asks Kafka Streams to commit as soon as it has been processed and goes nowhere; anything else is dead-lettered.
 */
public final class DecodeProcessor implements Processor<byte[], byte[], String, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(DecodeProcessor.class);

    private final SessionEventDecoder decoder;
    private final String sessionChild;
    private final String deadLetterChild;
    private final HandoffTracing tracing;
    private ProcessorContext<String, Object> context;

    public DecodeProcessor(SessionEventDecoder decoder, String sessionChild, String deadLetterChild) {
        this(decoder, sessionChild, deadLetterChild, HandoffTracing.OFF);
    }

    /**
     * @param tracing a hand-off event's span starts here, before its decode, and ends when the session processor
     *                (and the snapshot writer it forwards to, synchronously) are done with the record
     */
    public DecodeProcessor(SessionEventDecoder decoder, String sessionChild, String deadLetterChild,
                           HandoffTracing tracing) {
        this.decoder = decoder;
        this.sessionChild = sessionChild;
        this.deadLetterChild = deadLetterChild;
        this.tracing = tracing;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
    }

    @SuppressWarnings("try") // the log context is for the log line inside: not read in the block
    @Override
    public void process(Record<byte[], byte[]> record) {
        Header control = record.headers().lastHeader(SessionContextProcessor.CONTROL_HEADER);
        if (control != null) {
            control(record, control);
            return;
        }
        Instant start = tracing.start();
        Decoded decoded;
        try {
            decoded = decoder.decode(record.key(), record.value());
        } catch (SchemaRegistryUnavailableException e) {
            // says nothing about the record: fail the task, Kafka Streams retries it from the last commit
            throw new DependencyUnavailableException("schema registry unavailable while decoding " + sourceOf(), e);
        } catch (RuntimeException e) {
            // The decoder reports every contract violation as a rejection; anything it throws means the bytes could
            // not be read.
            try (LogContext log = LogContext.empty().with(LogContext.DEAD_LETTER_CODE, ErrorCode.MALFORMED.name())
                    .traceOf(record.headers())) {
                LOG.warn("Decoder failed on {}; dead-lettered as MALFORMED", sourceOf(), e);
            }
            decoded = Decoded.reject(ErrorCode.MALFORMED, "cannot read record: " + e);
        }
        if (!decoded.accepted()) {
            reject(record, decoded.code(), decoded.message());
            return;
        }
        InboundEvent event = decoded.event();
        // the decoder checked the key (KEY_MISMATCH): it is the event's session key
        // only the input line (provenance, docs/audit.md) travels on; other input headers stay behind
        RecordHeaders headers = new RecordHeaders();
        Header line = record.headers().lastHeader(SessionProvenance.SOURCE_LINE_HEADER);
        if (line != null) headers.add(line);
        Record<String, Object> out = new Record<>(event.sessionKey(), event, record.timestamp(), headers);
        if (event.handoff() == null || !tracing.on()) {
            context.forward(out, sessionChild);
            return;
        }
        String topic = context.recordMetadata().map(m -> m.topic()).orElse(null);
        try (HandoffTracing.Active span = tracing.startHandoff(record.headers(), event.tenantId(), event.sessionId(),
                event.handoff(), start, topic)) {
            try {
                context.forward(out, sessionChild);
            } catch (RuntimeException e) {
                span.failed(e);
                throw e;
            }
        }
    }

    private void control(Record<byte[], byte[]> record, Header control) {
        String signal = control.value() == null ? "" : new String(control.value(), StandardCharsets.UTF_8);
        if (SessionContextProcessor.COMMIT.equals(signal)) {
            // the backfill's last record of a partition: commit now rather than at the next commit interval
            context.commit();
            return;
        }
        if (!SessionContextProcessor.SETTLE.equals(signal)) {
            reject(record, ErrorCode.INVALID_FIELD, "unknown " + SessionContextProcessor.CONTROL_HEADER
                    + " signal '" + signal + "'");
            return;
        }
        String key = record.key() == null ? null : utf8(record.key());
        if (SessionKey.parse(key).isEmpty()) {
            reject(record, ErrorCode.INVALID_ID, "control record key is not {tenant_id}/{session_id}");
            return;
        }
        RecordHeaders headers = new RecordHeaders();
        headers.add(SessionContextProcessor.CONTROL_HEADER, control.value());
        context.forward(new Record<String, Object>(key, null, record.timestamp(), headers), sessionChild);
    }

    private void reject(Record<byte[], byte[]> record, ErrorCode code, String message) {
        DeadLetters.forward(context, deadLetterChild, record.timestamp(), record.key(), record.value(), code, message);
    }

    private String sourceOf() {
        return DeadLetters.sourceOf(context);
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
