package dev.baton.engine.state;

/** Serializes {@link SessionState} for the state store (API draft). */
public final class SessionStateCodec {
    private SessionStateCodec() {
    }

    public static byte[] encode(SessionState state) {
        throw new UnsupportedOperationException("in progress");
    }

    public static SessionState decode(byte[] bytes) {
        throw new UnsupportedOperationException("in progress");
    }
}
