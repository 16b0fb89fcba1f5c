package dev.baton.engine.model;

/** A legacy (pre-trail) tool call on an ASSISTANT turn; its result arrives as a separate TOOL turn. */
public record ToolCall(String callId, String tool, String arguments) {
}
