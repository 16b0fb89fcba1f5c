package dev.baton.ingest;

import dev.baton.deadletter.ErrorCode;

/** A contract check failed: carries the dead-letter code and message. Cheap (no stack trace). */
public final class RecordRejectedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public RecordRejectedException(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    public Decoded toDecoded() {
        return Decoded.reject(code, getMessage());
    }
}
