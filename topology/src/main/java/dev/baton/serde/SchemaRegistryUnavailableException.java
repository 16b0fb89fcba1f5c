package dev.baton.serde;

import dev.baton.deadletter.TransientFailure;

/**
 * The registry could not be reached, timed out, or answered with a server error (HTTP 5xx). Transient: a record that
 * hit this must not be dead-lettered; the caller should fail the task (Kafka Streams retries after a restart) or retry.
 */
public class SchemaRegistryUnavailableException extends SchemaRegistryException implements TransientFailure {
    private static final long serialVersionUID = 1L;

    public SchemaRegistryUnavailableException(String message, int httpStatus, Throwable cause) {
        super(message, httpStatus, -1, cause);
    }
}
