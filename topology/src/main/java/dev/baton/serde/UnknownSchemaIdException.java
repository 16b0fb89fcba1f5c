package dev.baton.serde;

/** The registry has no schema with the requested id (Confluent error 40403, HTTP 404). */
public class UnknownSchemaIdException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final int schemaId;

    public UnknownSchemaIdException(int schemaId, String message, int httpStatus, int errorCode) {
        super(message, httpStatus, errorCode, null);
        this.schemaId = schemaId;
    }

    public int schemaId() {
        return schemaId;
    }
}
