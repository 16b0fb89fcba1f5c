package dev.baton.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A value could not be read as the expected Avro record; {@link #kind()} says why, so that callers can map it to a
 * dead-letter code. (A registry that cannot be reached is not this: see {@link SchemaRegistryUnavailableException}.)
 */
public final class AvroReadException extends SerializationException {
    private static final long serialVersionUID = 1L;

    public enum Kind {
        /** Not the Confluent wire format, truncated, trailing bytes, invalid UTF-8, corrupt lengths. */
        MALFORMED,
        /** The schema id is unknown to the registry (or its schema is unusable). */
        UNKNOWN_SCHEMA,
        /** The writer schema is a different record type than the one expected. */
        WRONG_RECORD_TYPE,
        /**
         * The writer's data cannot be resolved to the reader schema: a field the reader requires is missing with no
         * default, an enum symbol the reader does not know, incompatible types.
         */
        UNRESOLVABLE
    }

    private final Kind kind;

    public AvroReadException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
