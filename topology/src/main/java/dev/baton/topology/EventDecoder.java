package dev.baton.topology;

/**
 * Reads one input record of {@code baton.session-events} (original key and value bytes) into a
 * {@link DecodeResult}: an accepted {@link dev.baton.processor.InboundEvent} or a rejection with a dead-letter code.
 * Implementations return rejections for every contract violation they detect; an exception is treated as
 * {@code MALFORMED} by {@link DecodeProcessor}.
 */
@FunctionalInterface
public interface EventDecoder {
    DecodeResult decode(String topic, byte[] key, byte[] value);
}
