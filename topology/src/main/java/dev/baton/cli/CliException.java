package dev.baton.cli;

/**
 * A failure the user can act on: its message is printed as {@code baton: MESSAGE} (no stack trace)
 * and the command exits with {@link #exitCode()}.
 */
public final class CliException extends RuntimeException {
  private final int exitCode;

  public CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public CliException(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
