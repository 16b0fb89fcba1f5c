package dev.baton.processor;

import dev.baton.deadletter.DeadLetter;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.engine.snapshot.SnapshotSize;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link SessionContextProcessor} is wired and timed.
 *
 * @param snapshotChild          name of the child node that receives {@code Snapshot} values
 * @param deadLetterChild        name of the child node that receives {@link DeadLetter} values
 * @param wallClockPunctuation   false in backfill mode: no wall-clock punctuator, no timer index writes, closed
 *                               sessions keep their state until the end of the input
 * @param punctuateInterval      how often the wall-clock punctuator looks at the timer index
 * @param maxSessionsPerPunctuation bound on the sessions one punctuation visits (the rest wait for the next one)
 * @param defaultPolicy          policy of tenants without a TenantPolicy record
 * @param policyDecoder          reads TenantPolicy bytes
 * @param policyStore            name of the global tenant-policies store, or null when the topology has none
 * @param tokenizers             the encodings policies may name for token caps and counts (asked only by tenants
 *                               whose policy uses them)
 * @param maxOutputBytes         {@code baton.max-output-bytes}: no snapshot or state entry may be larger; a snapshot
 *                               whose size bound exceeds it is rendered again with a lower transcript budget, a
 *                               state entry that exceeds it dead-letters its record as INTERNAL (nothing stored)
 * @param encoding               the snapshots' format, for {@link SnapshotSize}
 * @param decodedCacheBytes      bound of the decoded-state cache of one stream task, in bytes (skeleton plus the
 *                               approximate size of the turns a cached state holds); 0 turns the cache off
 */
public record SessionProcessorOptions(String snapshotChild, String deadLetterChild, boolean wallClockPunctuation,
                                      Duration punctuateInterval, int maxSessionsPerPunctuation,
                                      Policy defaultPolicy, PolicyDecoder policyDecoder, String policyStore,
                                      Tokenizers tokenizers, int maxOutputBytes, SnapshotSize.Encoding encoding,
                                      long decodedCacheBytes) {
    /** The decoded-state cache's default bound per stream task. */
    public static final long DEFAULT_DECODED_CACHE_BYTES = 32L * 1024 * 1024;

    /** Options with the JTokkit tokenizers, no output limit and the default cache (tests of the processor alone). */
    public SessionProcessorOptions(String snapshotChild, String deadLetterChild, boolean wallClockPunctuation,
                                   Duration punctuateInterval, int maxSessionsPerPunctuation, Policy defaultPolicy,
                                   PolicyDecoder policyDecoder, String policyStore) {
        this(snapshotChild, deadLetterChild, wallClockPunctuation, punctuateInterval, maxSessionsPerPunctuation,
                defaultPolicy, policyDecoder, policyStore, JTokkitTokenizers.shared(), Integer.MAX_VALUE,
                SnapshotSize.Encoding.JSON, DEFAULT_DECODED_CACHE_BYTES);
    }

    /** Options with the JTokkit tokenizers, no output limit and a decoded-state cache of {@code decodedCacheBytes}. */
    public SessionProcessorOptions(String snapshotChild, String deadLetterChild, boolean wallClockPunctuation,
                                   Duration punctuateInterval, int maxSessionsPerPunctuation, Policy defaultPolicy,
                                   PolicyDecoder policyDecoder, String policyStore, long decodedCacheBytes) {
        this(snapshotChild, deadLetterChild, wallClockPunctuation, punctuateInterval, maxSessionsPerPunctuation,
                defaultPolicy, policyDecoder, policyStore, JTokkitTokenizers.shared(), Integer.MAX_VALUE,
                SnapshotSize.Encoding.JSON, decodedCacheBytes);
    }

    /** No output limit, the default cache. */
    public SessionProcessorOptions(String snapshotChild, String deadLetterChild, boolean wallClockPunctuation,
                                   Duration punctuateInterval, int maxSessionsPerPunctuation, Policy defaultPolicy,
                                   PolicyDecoder policyDecoder, String policyStore, Tokenizers tokenizers) {
        this(snapshotChild, deadLetterChild, wallClockPunctuation, punctuateInterval, maxSessionsPerPunctuation,
                defaultPolicy, policyDecoder, policyStore, tokenizers, Integer.MAX_VALUE, SnapshotSize.Encoding.JSON,
                DEFAULT_DECODED_CACHE_BYTES);
    }

    /** An output limit, the default cache. */
    public SessionProcessorOptions(String snapshotChild, String deadLetterChild, boolean wallClockPunctuation,
                                   Duration punctuateInterval, int maxSessionsPerPunctuation, Policy defaultPolicy,
                                   PolicyDecoder policyDecoder, String policyStore, Tokenizers tokenizers,
                                   int maxOutputBytes, SnapshotSize.Encoding encoding) {
        this(snapshotChild, deadLetterChild, wallClockPunctuation, punctuateInterval, maxSessionsPerPunctuation,
                defaultPolicy, policyDecoder, policyStore, tokenizers, maxOutputBytes, encoding,
                DEFAULT_DECODED_CACHE_BYTES);
    }

    public SessionProcessorOptions {
        Objects.requireNonNull(tokenizers);
        Objects.requireNonNull(encoding);
        if (maxOutputBytes < 1) throw new IllegalArgumentException("maxOutputBytes must be >= 1: " + maxOutputBytes);
        if (decodedCacheBytes < 0) throw new IllegalArgumentException("decodedCacheBytes must be >= 0");
        Objects.requireNonNull(snapshotChild);
        Objects.requireNonNull(deadLetterChild);
        Objects.requireNonNull(punctuateInterval);
        Objects.requireNonNull(defaultPolicy);
        if (policyStore != null) Objects.requireNonNull(policyDecoder);
        if (punctuateInterval.isZero() || punctuateInterval.isNegative())
            throw new IllegalArgumentException("punctuate interval must be positive: " + punctuateInterval);
        if (maxSessionsPerPunctuation < 1)
            throw new IllegalArgumentException("maxSessionsPerPunctuation must be >= 1: " + maxSessionsPerPunctuation);
    }
}
