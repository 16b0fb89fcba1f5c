package dev.baton.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A JSON value could not be read as the expected record: {@link Kind#MALFORMED} when the bytes are not one readable
 * JSON object, {@link Kind#INVALID_FIELD} when the JSON is fine but a field is missing, null, of the wrong type, out
 * of range, or an unknown enum symbol. {@link #path()} names the field ({@code turn.trail[0].status}) when known.
 */
public final class JsonReadException extends SerializationException {
    private static final long serialVersionUID = 1L;

    public enum Kind { MALFORMED, INVALID_FIELD }

    private final Kind kind;
    private final String path;

    public JsonReadException(Kind kind, String path, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.path = path;
    }

    public Kind kind() {
        return kind;
    }

    /** The field path, or null when the error is not about one field. */
    public String path() {
        return path;
    }
}
