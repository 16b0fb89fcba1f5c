package dev.baton.replay.importer;

import dev.baton.engine.model.Identifiers;

/**
 * Deterministic mapping of recorded identifiers and names onto docs/contract.md, "Identifiers and names"
 * (docs/import.md, "Identifiers").
 *
 * <ul>
 *   <li>An id (tenant, session, event, call id) that is not 1–128 characters of {@code [A-Za-z0-9._:-]}: every other
 *       character becomes {@code _}, and {@code -} plus the first 8 hex digits of the SHA-256 of the original is
 *       appended (so two different originals stay different), the front cut to keep 128 characters.</li>
 *   <li>A name (agent, tool) that is not 1–64 characters of {@code [A-Za-z0-9_-]}: every other character becomes
 *       {@code _} ({@code claude-3.5-sonnet} → {@code claude-3_5-sonnet}, readable where it is narrated); only a name
 *       longer than 64 characters is cut to 55 and gets the hash suffix.</li>
 * </ul>
 * Every mapping is reported. Public for tools that build events from recordings in other ways (the receivers' corpus
 * test), so that they name things as {@code baton import} does.
 */
public final class Names {
    private Names() {
    }

    static boolean validId(String s) {
        return Identifiers.isValidId(s);
    }

    static boolean validName(String s) {
        return Identifiers.isValidName(s);
    }

    /** The id itself when valid, else its mapping. {@code raw} must not be null. */
    public static String id(String raw) {
        if (validId(raw)) return raw;
        String suffix = "-" + Texts.hash(raw, 8);
        String s = replace(raw, true);
        int room = 128 - suffix.length();
        if (s.length() > room) s = s.substring(0, room);
        return s + suffix;
    }

    /** The name itself when valid, else its mapping. {@code raw} must not be null or empty. */
    public static String name(String raw) {
        if (validName(raw)) return raw;
        String s = replace(raw, false);
        if (s.length() > 64) s = s.substring(0, 55) + "-" + Texts.hash(raw, 8);
        if (s.isEmpty()) s = "unnamed-" + Texts.hash(raw, 8);
        return s;
    }

    /** Appends {@code suffix} to a valid id, cutting the front part so the whole stays within 128 characters. */
    static String withSuffix(String id, String suffix) {
        int room = 128 - suffix.length();
        return (id.length() > room ? id.substring(0, room) : id) + suffix;
    }

    private static String replace(String raw, boolean id) {
        StringBuilder sb = new StringBuilder(raw.length());
        for (int i = 0; i < raw.length(); ) {
            int cp = raw.codePointAt(i);
            i += Character.charCount(cp);
            boolean ok = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_'
                    || cp == '-' || (id && (cp == '.' || cp == ':'));
            sb.append(ok ? (char) cp : '_');
        }
        return sb.toString();
    }
}
