package dev.baton.engine.snapshot;

import java.util.List;

/**
 * Sizes: budget characters of the messages, the brick's length, a rough token estimate (chars / 4) and, when the
 * policy asks for them ({@code token_count_encodings}), exact token counts per encoding in the policy's order; null
 * when not asked.
 */
public record Stats(long messageChars, long brickChars, long estimatedTokens, List<EncodingTokenCount> tokenCounts) {
    public Stats {
        tokenCounts = tokenCounts == null ? null : List.copyOf(tokenCounts);
    }

    public Stats(long messageChars, long brickChars, long estimatedTokens) {
        this(messageChars, brickChars, estimatedTokens, null);
    }
}
