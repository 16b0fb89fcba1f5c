package dev.baton.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.baton.engine.model.Identifiers;

/**
 * The bearer tokens that may query sessions, each scoped to tenants, read from a file (a Kubernetes Secret mounts as
 * one). One token per line: {@code TOKEN TENANT[,TENANT...]}, or {@code TOKEN *} for every tenant; blank lines and
 * lines starting with {@code #} are ignored. A token has at least 32 characters. The file is read again when its
 * modification time changes (a rotated Secret), at most once per second; a file that cannot be read keeps the tokens
 * read before (logged).
 *
 * <p>Only SHA-256 digests of the tokens are kept, and a presented token is compared with every one of them with
 * {@link MessageDigest#isEqual} (constant time), without stopping at the first match, so the answer time says
 * nothing about how much of a token was right. The tokens themselves are never logged.
 */
final class TenantTokens {
    private static final Logger LOG = LoggerFactory.getLogger(TenantTokens.class);
    static final int MIN_TOKEN_CHARS = 32;

    /** What a request may do. */
    enum Access { MISSING, INVALID, FORBIDDEN, ALLOWED }

    private record Entry(byte[] digest, Set<String> tenants) {
    }

    private final Path file;
    private volatile List<Entry> entries;
    private volatile FileTime loaded;
    private volatile long checkedAt;

    /** Reads {@code file}; fails when it cannot be read or a line is invalid (at start, a mistake must be loud). */
    TenantTokens(Path file) throws IOException {
        this.file = file;
        this.entries = parse(Files.readAllLines(file, StandardCharsets.UTF_8), file);
        this.loaded = Files.getLastModifiedTime(file);
    }

    /** The access {@code authorization} (an HTTP Authorization header, or null) gives to {@code tenantId}. */
    Access check(String authorization, String tenantId) {
        reloadIfChanged();
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) return Access.MISSING;
        byte[] presented = sha256(authorization.substring(7).trim());
        Entry match = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.digest, presented) && match == null) match = e;
        }
        if (match == null) return Access.INVALID;
        return match.tenants.contains("*") || match.tenants.contains(tenantId) ? Access.ALLOWED : Access.FORBIDDEN;
    }

    private void reloadIfChanged() {
        long now = System.nanoTime();
        if (now - checkedAt < 1_000_000_000L) return;
        checkedAt = now;
        try {
            FileTime t = Files.getLastModifiedTime(file);
            if (t.equals(loaded)) return;
            entries = parse(Files.readAllLines(file, StandardCharsets.UTF_8), file);
            loaded = t;
            LOG.info("Query tokens read again from {} ({} tokens)", file, entries.size());
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("Query tokens file {} cannot be read again; keeping the {} tokens read before: {}", file,
                    entries.size(), e.getMessage());
        }
    }

    static List<Entry> parse(List<String> lines, Path file) {
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] parts = line.split("\\s+");
            String where = file + " line " + (i + 1);
            if (parts.length != 2) {
                throw new IllegalArgumentException(where + ": expected 'TOKEN TENANT[,TENANT...]' or 'TOKEN *'");
            }
            if (parts[0].length() < MIN_TOKEN_CHARS) {
                throw new IllegalArgumentException(where + ": a token has at least " + MIN_TOKEN_CHARS + " characters");
            }
            Set<String> tenants = Set.of(parts[1].split(","));
            for (String t : tenants) {
                if (!t.equals("*") && !Identifiers.isValidId(t)) {
                    throw new IllegalArgumentException(where + ": '" + t + "' is not a tenant id");
                }
            }
            out.add(new Entry(sha256(parts[0]), tenants));
        }
        return List.copyOf(out);
    }

    int size() {
        return entries.size();
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
