package dev.baton.app;

/**
 * A failure the user can act on: its message is printed as {@code baton: MESSAGE} (no stack trace)
 * and the command exits with {@link #exitCode()}.
 */
public final class AppFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public AppFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public AppFailure(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
