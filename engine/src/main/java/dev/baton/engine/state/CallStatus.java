package dev.baton.engine.state;

/**
 * How a tool call ended as far as the session history says (the call ledger): OK, ERROR or CLEARED as its trail step
 * says, or UNANSWERED for a legacy call whose TOOL turn has not arrived. Stored as the fixed byte {@link #code()}.
 */
public enum CallStatus {
    OK(0), ERROR(1), CLEARED(2), UNANSWERED(3);

    private final int code;

    CallStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static CallStatus ofCode(int code) {
        for (CallStatus s : values()) if (s.code == code) return s;
        throw new IllegalArgumentException("unknown call status byte " + code);
    }
}
