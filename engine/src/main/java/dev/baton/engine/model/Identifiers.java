package dev.baton.engine.model;

/** docs/contract.md, "Identifiers and names": the shapes of identifiers and names. Anything else is dead-lettered. */
public final class Identifiers {
    private Identifiers() {
    }

    /**
     * The prefix of the ids of a backfill's synthetic hand-offs ({@code --handoff-at}; reserved there). Such a hand-off
     * is a what-if, not a delivery: its snapshot is not remembered as the receiver's previous one (stable prefix, trim
     * step), so real hand-offs render the same with and without triggers.
     */
    public static final String SYNTHETIC_HANDOFF_PREFIX = "baton-synthetic:";

    /** True for the id of a backfill's synthetic hand-off ({@link #SYNTHETIC_HANDOFF_PREFIX}). */
    public static boolean isSyntheticHandoffId(String handoffId) {
        return handoffId != null && handoffId.startsWith(SYNTHETIC_HANDOFF_PREFIX);
    }

    /** tenant_id, session_id, event_id, handoff_id, call_id: 1–128 of {@code [A-Za-z0-9._:-]}. */
    public static boolean isValidId(String s) {
        // a loop, not a regular expression: every event's and every session key's ids pass here
        if (s == null || s.isEmpty() || s.length() > 128) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == ':' || c == '-';
            if (!ok) return false;
        }
        return true;
    }

    /** Agent and tool names: 1–64 of {@code [A-Za-z0-9_-]} (what OpenAI-compatible endpoints accept). */
    public static boolean isValidName(String s) {
        // a loop too (every turn's agent and every step's tool); IdentifiersProperties checks it against the pattern
        if (s == null || s.isEmpty() || s.length() > 64) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            if (!ok) return false;
        }
        return true;
    }
}
