package dev.baton.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.baton.engine.model.Identifiers;
import dev.baton.processor.MetricCatalogue;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The bearer tokens that may query sessions, each scoped to tenants, read from a file (a Kubernetes Secret mounts as
 * one). One token per line: {@code TOKEN TENANT[,TENANT...]}, or {@code TOKEN *} for every tenant; blank lines and
 * lines starting with {@code #} are ignored. A token has at least 32 characters. The file is read again at most once
 * per second (when a query or a scrape asks), so a rotated Secret takes effect within a second. A file that becomes
 * unreadable, missing or invalid <em>fails closed</em>: every token is revoked (queries are answered 503) until the
 * file is valid again, {@code baton_http_tokens_valid} is 0 and {@code baton_http_tokens_reload_failures_total}
 * counts the times this happened — keeping the old tokens would keep a revoked token valid.
 *
 * <p>Only SHA-256 digests of the tokens are kept, and a presented token is compared with every one of them with
 * {@link MessageDigest#isEqual} (constant time), without stopping at the first match, so the answer time says
 * nothing about how much of a token was right. The tokens themselves are never logged.
 */
final class TenantTokens implements MeterBinder {
    private static final MetricCatalogue VALID = MetricCatalogue.HTTP_TOKENS_VALID;
    private static final MetricCatalogue RELOAD_FAILURES = MetricCatalogue.HTTP_TOKENS_RELOAD_FAILURES;
    private static final Logger LOG = LoggerFactory.getLogger(TenantTokens.class);
    static final int MIN_TOKEN_CHARS = 32;

    /** What a request may do. */
    enum Access { MISSING, INVALID, FORBIDDEN, ALLOWED, UNAVAILABLE }

    private record Entry(byte[] digest, Set<String> tenants) {
    }

    private final Path file;
    private volatile List<Entry> entries;
    /** SHA-256 of the file's content when it was last read successfully (nothing to parse while it is the same). */
    private volatile byte[] loaded;
    /** False while failed closed: the file could not be read or parsed, every token is revoked. */
    private volatile boolean valid = true;
    private final AtomicLong failures = new AtomicLong();
    /** Times {@link #reload()} ran: the one trace of a reload that changes nothing (e.g. while failed closed). */
    private final AtomicLong reloads = new AtomicLong();
    private volatile long checkedAt = System.nanoTime();

    /** Reads {@code file}; fails when it cannot be read or a line is invalid (at start, a mistake must be loud). */
    TenantTokens(Path file) throws IOException {
        this.file = file;
        byte[] content = Files.readAllBytes(file);
        this.entries = parse(lines(content), file);
        this.loaded = sha256(content);
    }

    /** The access {@code authorization} (an HTTP Authorization header, or null) gives to {@code tenantId}. */
    Access check(String authorization, String tenantId) {
        reloadIfDue();
        if (!valid) return Access.UNAVAILABLE;
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) return Access.MISSING;
        byte[] presented = sha256(authorization.substring(7).trim());
        Entry match = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.digest, presented) && match == null) match = e;
        }
        if (match == null) return Access.INVALID;
        return match.tenants.contains("*") || match.tenants.contains(tenantId) ? Access.ALLOWED : Access.FORBIDDEN;
    }

    /** Reads the file again when a second has passed since the last look (a query or a scrape asks). */
    private void reloadIfDue() {
        long now = System.nanoTime();
        if (now - checkedAt < 1_000_000_000L) return;
        synchronized (this) {
            if (now - checkedAt < 1_000_000_000L) return;
            checkedAt = now;
            reload();
        }
    }

    /** Reads and parses the file; fails closed (every token revoked) when it cannot. */
    synchronized void reload() {
        reloads.incrementAndGet(); // before the read, so a count taken after a change to the file sees it
        try {
            byte[] content = Files.readAllBytes(file);
            byte[] digest = sha256(content);
            if (valid && MessageDigest.isEqual(digest, loaded)) return;
            List<Entry> parsed = parse(lines(content), file);
            entries = parsed;
            loaded = digest;
            if (!valid) {
                LOG.warn("Query tokens file {} is valid again: {} tokens", file, parsed.size());
            } else {
                LOG.info("Query tokens read again from {} ({} tokens)", file, parsed.size());
            }
            valid = true;
        } catch (IOException | IllegalArgumentException | java.io.UncheckedIOException e) {
            entries = List.of();
            if (valid) {
                valid = false;
                failures.incrementAndGet();
                // the message names the file and a line number, never a token
                LOG.error("Query tokens file {} cannot be read or is invalid: every token is revoked until it is fixed "
                        + "(session queries answer 503): {}", file, e.getMessage());
            }
        }
    }

    /** 1 while the tokens file is valid, 0 while failed closed (every token revoked). */
    boolean valid() {
        reloadIfDue();
        return valid;
    }

    /** Times the file could not be read or parsed, so that every token was revoked. */
    long reloadFailures() {
        return failures.get();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(VALID.meterName(), this, t -> t.valid() ? 1 : 0).description(VALID.description())
                .register(registry);
        FunctionCounter.builder(RELOAD_FAILURES.meterName(), this, TenantTokens::reloadFailures)
                .description(RELOAD_FAILURES.description()).register(registry);
    }

    /**
     * The same two meters when no tokens file is configured (session queries are off by configuration, not failed
     * closed): valid 1, no failures. They always exist, so an alert on them sees every instance.
     */
    static void bindWithoutFile(MeterRegistry registry) {
        Gauge.builder(VALID.meterName(), () -> 1).description(VALID.description()).register(registry);
        FunctionCounter.builder(RELOAD_FAILURES.meterName(), registry, r -> 0)
                .description(RELOAD_FAILURES.description()).register(registry);
    }

    private static List<String> lines(byte[] content) {
        // a malformed UTF-8 sequence is an invalid file, not a silently replaced character
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(content)).toString().lines().toList();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalArgumentException("not UTF-8 text");
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

    /** Times the file was read again since start ({@link #reload()} ran), whatever the outcome. */
    long reloads() {
        return reloads.get();
    }

    int size() {
        return entries.size();
    }

    private static byte[] sha256(String s) {
        return sha256(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
