package dev.baton.engine.snapshot;

/**
 * Exact token counts of one encoding: the transcript (every message's content plus the tool names and arguments of
 * its tool calls, each counted on its own, as the character budget counts them) and the brick.
 */
public record EncodingTokenCount(String encoding, long transcriptTokens, long brickTokens) {
}
