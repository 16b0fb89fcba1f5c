package dev.baton.ingest;

import dev.baton.engine.model.Excerpt;
import dev.baton.avro.SessionEvent;
import dev.baton.deadletter.ErrorCode;
import dev.baton.serde.AvroJson;
import dev.baton.serde.JsonReadException;

/**
 * {@link SessionEventDecoder} for JSON values: one UTF-8 JSON object per record in the form of docs/contract.md's
 * "JSONL files" (read by {@link AvroJson}). Create with {@link SessionEventDecoder#json}.
 */
public final class JsonSessionEventDecoder implements SessionEventDecoder {
    private final int maxRecordBytes;

    public JsonSessionEventDecoder(int maxRecordBytes) {
        if (maxRecordBytes <= 0) throw new IllegalArgumentException("maxRecordBytes must be > 0, was " + maxRecordBytes);
        this.maxRecordBytes = maxRecordBytes;
    }

    @Override
    public Decoded decode(byte[] key, byte[] value) {
        Decoded oversized = SessionEventDecoder.checkSize(key, value, maxRecordBytes);
        if (oversized != null) return oversized;
        try {
            SessionEvent event;
            try {
                event = AvroJson.read(value, SessionEvent.class);
            } catch (JsonReadException e) {
                return Decoded.reject(e.kind() == JsonReadException.Kind.MALFORMED ? ErrorCode.MALFORMED
                        : ErrorCode.INVALID_FIELD, e.getMessage());
            }
            return Decoded.accept(SessionEventValidator.validate(event, key, value));
        } catch (RecordRejectedException e) {
            return e.toDecoded();
        } catch (RuntimeException e) {
            // last line of defence: decode must not throw for bad input
            return Decoded.reject(ErrorCode.MALFORMED, "value cannot be read: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + Excerpt.quote(e.getMessage())));
        }
    }
}
