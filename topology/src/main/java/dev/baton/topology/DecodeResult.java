package dev.baton.topology;

import dev.baton.processor.ErrorCode;
import dev.baton.processor.InboundEvent;

import java.util.Objects;

/** What decoding one input record gave: an event for the session processor, or a dead-letter code and message. */
public sealed interface DecodeResult {

    static DecodeResult accepted(InboundEvent event) {
        return new Accepted(event);
    }

    static DecodeResult rejected(ErrorCode code, String message) {
        return new Rejected(code, message);
    }

    record Accepted(InboundEvent event) implements DecodeResult {
        public Accepted {
            Objects.requireNonNull(event);
        }
    }

    record Rejected(ErrorCode code, String message) implements DecodeResult {
        public Rejected {
            Objects.requireNonNull(code);
            if (message == null) message = code.name();
        }
    }
}
