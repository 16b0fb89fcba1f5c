package dev.baton.consumer.dialect.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.core.ObjectMappers;
import com.openai.models.chat.completions.ChatCompletionCreateParams;

/**
 * The {@code openai-chat} and {@code chat-template:NAME} requests (docs/receivers.md) as openai-java's
 * {@link ChatCompletionCreateParams}, for OpenAI's Chat Completions and every OpenAI-compatible server (vLLM,
 * llama.cpp, Ollama: the client's base URL names the server). The body is read by the SDK's own JSON mapper, so every
 * field of the dialect reaches the wire as the SDK serializes it; needs {@code com.openai:openai-java} on the class
 * path.
 *
 * <pre>{@code
 * JsonNode body = ReceiverRequests.build(snapshot, Dialect.OPENAI_CHAT, options).body();
 * ChatCompletionCreateParams params = OpenAiChatAdapter.params(body);
 * ChatCompletion reply = client.chat().completions().create(params);   // OpenAIClient client
 * }</pre>
 */
public final class OpenAiChatAdapter {

    private OpenAiChatAdapter() {
    }

    /** The chat-completions body ({@code model}, {@code messages}) as the SDK's typed request. */
    public static ChatCompletionCreateParams params(JsonNode body) {
        try {
            ChatCompletionCreateParams.Body typed = ObjectMappers.jsonMapper()
                    .readValue(DialectJson.text(body), ChatCompletionCreateParams.Body.class);
            return ChatCompletionCreateParams.builder().body(typed).build();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a chat-completions body: " + e.getOriginalMessage(), e);
        }
    }
}
