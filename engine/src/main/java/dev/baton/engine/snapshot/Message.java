package dev.baton.engine.snapshot;

import dev.baton.engine.model.ToolCall;

import java.util.List;

/**
 * One chat message of the transcript, mapping one-to-one onto an OpenAI-compatible chat request.
 *
 * @param role       "system", "user", "assistant" or "tool"
 * @param name       the other agent's name on its assistant text, else null
 * @param content    message content (never null)
 * @param toolCalls  the receiver's own tool calls (assistant messages only)
 * @param toolCallId the call a tool message answers
 */
public record Message(String role, String name, String content, List<ToolCall> toolCalls, String toolCallId) {
    public Message {
        content = content == null ? "" : content;
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    public static Message system(String content) {
        return new Message("system", null, content, List.of(), null);
    }

    public static Message user(String content) {
        return new Message("user", null, content, List.of(), null);
    }

    public static Message assistant(String name, String content) {
        return new Message("assistant", name, content, List.of(), null);
    }

    /** Characters this message counts against a budget: content plus tool names and arguments of its calls. */
    public int budgetChars() {
        int n = content.length();
        for (int i = 0; i < toolCalls.size(); i++) {
            ToolCall c = toolCalls.get(i);
            n += c.tool().length() + c.arguments().length();
        }
        return n;
    }
}
