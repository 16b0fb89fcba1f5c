package dev.baton.engine.snapshot;

import java.util.List;

/**
 * Sizes: budget characters of the messages, the brick's length, a rough token estimate (chars / 4), when the policy
 * asks for them ({@code token_count_encodings}) exact token counts per encoding in the policy's order (null when not
 * asked), and how many leading characters of the messages equal the receiver's previous snapshot of the session
 * ({@link PrefixPrint}; null when there is none to compare with).
 */
public record Stats(long messageChars, long brickChars, long estimatedTokens, List<EncodingTokenCount> tokenCounts,
                    Long stablePrefixChars) {
    public Stats {
        tokenCounts = tokenCounts == null ? null : List.copyOf(tokenCounts);
    }

    public Stats(long messageChars, long brickChars, long estimatedTokens, List<EncodingTokenCount> tokenCounts) {
        this(messageChars, brickChars, estimatedTokens, tokenCounts, null);
    }

    public Stats(long messageChars, long brickChars, long estimatedTokens) {
        this(messageChars, brickChars, estimatedTokens, null, null);
    }
}
