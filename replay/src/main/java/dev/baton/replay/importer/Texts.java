package dev.baton.replay.importer;

import dev.baton.engine.state.Utf8;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Small text helpers of the importer. */
final class Texts {
    private Texts() {
    }

    /** A short quoted excerpt for messages (at most 80 characters). */
    static String quote(String s) {
        if (s == null) return "null";
        String t = s.length() > 80 ? s.substring(0, 77) + "…" : s;
        return "'" + t.replace("\n", "\\n").replace("\r", "\\r") + "'";
    }

    /** The first {@code hexChars} hex digits of the SHA-256 of the UTF-8 bytes of {@code s}. */
    static String hash(String s, int hexChars) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d).substring(0, hexChars);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** UTF-8 length of a string. */
    static long utf8(String s) {
        return Utf8.length(s);
    }
}
