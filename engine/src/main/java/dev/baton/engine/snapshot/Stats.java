package dev.baton.engine.snapshot;

/** Sizes: budget characters of the messages, the brick's length, and a rough token estimate (chars / 4). */
public record Stats(long messageChars, long brickChars, long estimatedTokens) {
}
