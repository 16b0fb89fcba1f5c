package dev.baton.ingest;

import dev.baton.engine.model.Excerpt;
import dev.baton.avro.SessionEvent;
import dev.baton.deadletter.ErrorCode;
import dev.baton.serde.AvroReadException;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.SchemaRegistryClient;
import dev.baton.serde.SchemaRegistryUnavailableException;

/**
 * {@link SessionEventDecoder} for Confluent-wire-format Avro values: the writer schema is fetched by id from the
 * registry (cached) and resolved against this version's {@code SessionEvent}, so compatible older and newer writers
 * read fine. Create with {@link SessionEventDecoder#avro}.
 */
public final class AvroSessionEventDecoder implements SessionEventDecoder {
    private final ConfluentAvroCodec<SessionEvent> codec;
    private final int maxRecordBytes;

    public AvroSessionEventDecoder(SchemaRegistryClient registry, int maxRecordBytes) {
        if (maxRecordBytes <= 0) throw new IllegalArgumentException("maxRecordBytes must be > 0, was " + maxRecordBytes);
        this.codec = new ConfluentAvroCodec<>(registry, SessionEvent.class);
        this.maxRecordBytes = maxRecordBytes;
    }

    @Override
    public Decoded decode(byte[] key, byte[] value) {
        Decoded oversized = SessionEventDecoder.checkSize(key, value, maxRecordBytes);
        if (oversized != null) return oversized;
        try {
            SessionEvent event;
            try {
                event = codec.deserialize(value);
            } catch (AvroReadException e) {
                return Decoded.reject(codeOf(e.kind()), e.getMessage());
            }
            return Decoded.accept(SessionEventValidator.validate(event, key, value));
        } catch (RecordRejectedException e) {
            return e.toDecoded();
        } catch (SchemaRegistryUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            // last line of defence: decode must not throw for bad input
            return Decoded.reject(ErrorCode.MALFORMED, "value cannot be read: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + Excerpt.quote(e.getMessage())));
        }
    }

    private static ErrorCode codeOf(AvroReadException.Kind kind) {
        return switch (kind) {
            case MALFORMED -> ErrorCode.MALFORMED;
            case UNKNOWN_SCHEMA, WRONG_RECORD_TYPE -> ErrorCode.UNKNOWN_SCHEMA;
            case UNRESOLVABLE -> ErrorCode.INVALID_FIELD;
        };
    }
}
