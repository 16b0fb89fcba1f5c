package dev.baton.deadletter;

/**
 * A rejected input record: original key and value bytes plus the contract's dead-letter headers
 * ({@code baton.error.code}, {@code baton.error.message}, {@code baton.source.topic}, {@code baton.source.partition},
 * {@code baton.source.offset}).
 */
public record DeadLetter(byte[] key, byte[] value, String code, String message, String sourceTopic, int sourcePartition,
                         long sourceOffset) {
}
