package dev.baton.topology;

/**
 * An output record larger than {@code baton.max-output-bytes}: thrown before it is sent, so that the processing
 * exception handler dead-letters the input record as INTERNAL and the transaction stays healthy.
 */
public final class RecordTooLargeForLimitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RecordTooLargeForLimitException(String message) {
        super(message);
    }
}
