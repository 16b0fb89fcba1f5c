package dev.baton.deadletter;

/**
 * Marks an exception that says nothing about the record being processed — a dependency (the schema registry) that
 * cannot be reached right now. {@link DeadLetters#isTransient} treats it like a Kafka {@code RetriableException}:
 * the task fails and the record is retried, it is never dead-lettered.
 */
public interface TransientFailure {
}
