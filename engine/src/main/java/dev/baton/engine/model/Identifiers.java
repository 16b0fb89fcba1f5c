package dev.baton.engine.model;

import java.util.regex.Pattern;

/** CONTRACT.md §1: the shapes of identifiers and names. Anything else is dead-lettered. */
public final class Identifiers {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private Identifiers() {
    }

    /** tenant_id, session_id, event_id, handoff_id, call_id: 1–128 of {@code [A-Za-z0-9._:-]}. */
    public static boolean isValidId(String s) {
        return s != null && ID.matcher(s).matches();
    }

    /** Agent and tool names: 1–64 of {@code [A-Za-z0-9_-]} (what OpenAI-compatible endpoints accept). */
    public static boolean isValidName(String s) {
        return s != null && NAME.matcher(s).matches();
    }
}
