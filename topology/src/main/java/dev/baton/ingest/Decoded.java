package dev.baton.ingest;

import dev.baton.deadletter.ErrorCode;
import dev.baton.processor.InboundEvent;

/**
 * What {@link SessionEventDecoder#decode} made of one input record: either an accepted {@link InboundEvent}
 * ({@link #accepted()} true, {@code code} and {@code message} null) or a rejection with its dead-letter code and a
 * human-readable message ({@code event} null). The message never quotes more than about 200 characters of input.
 */
public record Decoded(InboundEvent event, ErrorCode code, String message) {

    public static Decoded accept(InboundEvent event) {
        return new Decoded(event, null, null);
    }

    public static Decoded reject(ErrorCode code, String message) {
        return new Decoded(null, code, message);
    }

    public boolean accepted() {
        return event != null;
    }
}
