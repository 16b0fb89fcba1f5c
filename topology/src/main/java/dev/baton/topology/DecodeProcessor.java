package dev.baton.topology;

import dev.baton.engine.model.Identifiers;
import dev.baton.processor.DeadLetter;
import dev.baton.processor.ErrorCode;
import dev.baton.processor.InboundEvent;
import dev.baton.processor.SessionContextProcessor;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;

/**
 * First node after the source: checks the record's size, reads it with the {@link EventDecoder} and checks that the
 * key is the value's {@code tenant_id/session_id}. Accepted events go to the session processor keyed by the session
 * key; rejections go to the dead-letter writer with the original bytes and the source coordinates.
 *
 * <p>Control records (header {@code baton.control}) are not events: a {@code settle} signal is passed on to the
 * session processor with a null value; anything else is dead-lettered.
 */
public final class DecodeProcessor implements Processor<byte[], byte[], String, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(DecodeProcessor.class);

    private final EventDecoder decoder;
    private final int maxRecordBytes;
    private final String sessionChild;
    private final String deadLetterChild;
    private ProcessorContext<String, Object> context;

    public DecodeProcessor(EventDecoder decoder, int maxRecordBytes, String sessionChild, String deadLetterChild) {
        this.decoder = decoder;
        this.maxRecordBytes = maxRecordBytes;
        this.sessionChild = sessionChild;
        this.deadLetterChild = deadLetterChild;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        byte[] key = record.key();
        byte[] value = record.value();
        Header control = record.headers().lastHeader(SessionContextProcessor.CONTROL_HEADER);
        if (control != null) {
            control(record, control);
            return;
        }
        if (value == null) {
            reject(record, ErrorCode.MALFORMED, "record has no value");
            return;
        }
        long size = (long) value.length + (key == null ? 0 : key.length);
        if (size > maxRecordBytes) {
            reject(record, ErrorCode.OVERSIZED, "record of " + size + " bytes is over the limit of "
                    + maxRecordBytes + " bytes");
            return;
        }
        DecodeResult result;
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse(null);
        try {
            result = decoder.decode(topic, key, value);
        } catch (RuntimeException e) {
            // The decoder reports every contract violation it knows as a rejection; anything it throws means the
            // bytes could not be read.
            LOG.debug("Decoder threw on {}", sourceOf(), e);
            result = DecodeResult.rejected(ErrorCode.MALFORMED, "cannot read record: " + e);
        }
        if (result instanceof DecodeResult.Rejected rejected) {
            reject(record, rejected.code(), rejected.message());
            return;
        }
        InboundEvent event = ((DecodeResult.Accepted) result).event();
        String expected = event.sessionKey();
        String actual = key == null ? null : utf8(key);
        if (!expected.equals(actual)) {
            reject(record, ErrorCode.KEY_MISMATCH, "key " + (actual == null ? "(none)" : "'" + actual + "'")
                    + " is not the value's tenant_id/session_id '" + expected + "'");
            return;
        }
        // fresh headers: input headers are not carried to the outputs
        context.forward(new Record<String, Object>(expected, event, record.timestamp(), new RecordHeaders()),
                sessionChild);
    }

    private void control(Record<byte[], byte[]> record, Header control) {
        String signal = control.value() == null ? "" : new String(control.value(), StandardCharsets.UTF_8);
        if (!SessionContextProcessor.SETTLE.equals(signal)) {
            reject(record, ErrorCode.INVALID_FIELD, "unknown " + SessionContextProcessor.CONTROL_HEADER
                    + " signal '" + signal + "'");
            return;
        }
        String key = record.key() == null ? null : utf8(record.key());
        int slash = key == null ? -1 : key.indexOf('/');
        if (slash < 0 || !Identifiers.isValidId(key.substring(0, slash))
                || !Identifiers.isValidId(key.substring(slash + 1))) {
            reject(record, ErrorCode.INVALID_ID, "control record key is not {tenant_id}/{session_id}");
            return;
        }
        RecordHeaders headers = new RecordHeaders();
        headers.add(SessionContextProcessor.CONTROL_HEADER, control.value());
        context.forward(new Record<String, Object>(key, null, record.timestamp(), headers), sessionChild);
    }

    private void reject(Record<byte[], byte[]> record, ErrorCode code, String message) {
        RecordMetadata meta = context.recordMetadata().orElse(null);
        DeadLetter dl = new DeadLetter(record.key(), record.value(), code.name(), message,
                meta == null ? null : meta.topic(), meta == null ? -1 : meta.partition(),
                meta == null ? -1L : meta.offset());
        context.forward(new Record<String, Object>(null, dl, record.timestamp(), new RecordHeaders()),
                deadLetterChild);
    }

    private String sourceOf() {
        return context.recordMetadata().map(m -> m.topic() + "-" + m.partition() + "@" + m.offset()).orElse("?");
    }

    /** Strict UTF-8: a key that is not valid UTF-8 cannot equal any session key. */
    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
