package dev.baton.processor;

import dev.baton.deadletter.DeadLetter;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.tokens.Tokenizers;

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
 */
public record SessionProcessorOptions(String snapshotChild, String deadLetterChild, boolean wallClockPunctuation,
                                      Duration punctuateInterval, int maxSessionsPerPunctuation,
                                      Policy defaultPolicy, PolicyDecoder policyDecoder, String policyStore,
                                      Tokenizers tokenizers) {
    /** Options with the JTokkit tokenizers. */
    public SessionProcessorOptions(String snapshotChild, String deadLetterChild, boolean wallClockPunctuation,
                                   Duration punctuateInterval, int maxSessionsPerPunctuation, Policy defaultPolicy,
                                   PolicyDecoder policyDecoder, String policyStore) {
        this(snapshotChild, deadLetterChild, wallClockPunctuation, punctuateInterval, maxSessionsPerPunctuation,
                defaultPolicy, policyDecoder, policyStore, JTokkitTokenizers.shared());
    }

    public SessionProcessorOptions {
        Objects.requireNonNull(tokenizers);
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
