package dev.baton.receivers;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Maps recorded identifiers and names onto Baton's patterns (docs/contract.md, "Identifiers and names") the way
 * {@code baton import} does (docs/import.md, "Sessions, identifiers and names"): other characters become {@code _};
 * an id that had to change gets {@code -} and 8 hex digits of the original's SHA-256 so two originals stay apart.
 */
final class BatonNames {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private BatonNames() {
    }

    static String id(String raw) {
        if (ID.matcher(raw).matches()) return raw;
        String suffix = "-" + hash(raw);
        String s = replace(raw, true);
        int room = 128 - suffix.length();
        if (s.length() > room) s = s.substring(s.length() - room);
        return s + suffix;
    }

    static String name(String raw) {
        if (raw == null || raw.isEmpty()) return "unnamed";
        if (NAME.matcher(raw).matches()) return raw;
        String s = replace(raw, false);
        if (s.length() > 64) s = s.substring(0, 55) + "-" + hash(raw);
        return s;
    }

    private static String replace(String raw, boolean id) {
        StringBuilder sb = new StringBuilder(raw.length());
        raw.codePoints().forEach(cp -> {
            boolean ok = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_'
                    || cp == '-' || (id && (cp == '.' || cp == ':'));
            sb.append(ok ? (char) cp : '_');
        });
        return sb.toString();
    }

    static String hash(String raw) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(raw.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d).substring(0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
