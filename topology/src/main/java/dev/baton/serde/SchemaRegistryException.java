package dev.baton.serde;

/**
 * A schema registry refused a request or answered something unusable. See the subclasses for the two cases callers
 * treat specially: {@link UnknownSchemaIdException} and {@link SchemaRegistryUnavailableException}.
 */
public class SchemaRegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int httpStatus;
    private final int errorCode;

    public SchemaRegistryException(String message) {
        this(message, -1, -1, null);
    }

    public SchemaRegistryException(String message, int httpStatus, int errorCode, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    /** The HTTP status of the registry's answer, or -1 (no answer, or an in-memory registry). */
    public int httpStatus() {
        return httpStatus;
    }

    /** The Confluent {@code error_code} of the registry's answer (e.g. 40403), or -1 when there was none. */
    public int errorCode() {
        return errorCode;
    }
}
