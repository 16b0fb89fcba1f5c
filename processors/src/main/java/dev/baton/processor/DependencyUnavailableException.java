package dev.baton.processor;

import org.apache.kafka.common.errors.RetriableException;

/**
 * Something outside the record (a schema registry) could not be reached. Processors never dead-letter a record for
 * this: they let it fail the task, so that Kafka Streams retries the record from the last commit once the
 * dependency is back (a Kafka {@link RetriableException}).
 */
public class DependencyUnavailableException extends RetriableException {
    private static final long serialVersionUID = 1L;

    public DependencyUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
