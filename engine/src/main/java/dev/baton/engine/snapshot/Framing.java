package dev.baton.engine.snapshot;

/** R7: how the receiver is told what the conversation is. */
public record Framing(FramingKind kind, String systemPrompt) {
}
