package dev.baton.config;

/** A setting that is unknown, malformed or contradicts another one; the message names every source involved. */
public class BatonConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BatonConfigException(String message) {
        super(message);
    }

    public BatonConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
