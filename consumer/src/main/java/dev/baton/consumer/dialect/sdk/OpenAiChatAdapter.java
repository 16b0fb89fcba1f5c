package dev.baton.consumer.dialect.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.core.ObjectMappers;
import com.openai.models.chat.completions.ChatCompletionCreateParams;

import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequest;

/**
 * The {@code openai-chat} and {@code chat-template:NAME} requests (docs/receivers.md) as openai-java's
 * {@link ChatCompletionCreateParams}, for OpenAI's Chat Completions and every OpenAI-compatible server (vLLM,
 * llama.cpp, Ollama: the client's base URL names the server). The body is read by the SDK's own JSON mapper, so every
 * field of the dialect reaches the wire as the SDK serializes it; needs {@code com.openai:openai-java} on the class
 * path.
 *
 * <pre>{@code
 * ReceiverRequest request = ReceiverRequests.build(snapshot, Dialect.OPENAI_CHAT, options);
 * ChatCompletionCreateParams params = OpenAiChatAdapter.params(request);
 * ChatCompletion reply = client.chat().completions().create(params);   // OpenAIClient client
 * }</pre>
 */
public final class OpenAiChatAdapter {

    private OpenAiChatAdapter() {
    }

    /** The request's body as the SDK's typed request; the request must be of {@code openai-chat or chat-template:NAME}. */
    public static ChatCompletionCreateParams params(ReceiverRequest request) {
        Dialect dialect = request.dialect();
        if (!(dialect == Dialect.OPENAI_CHAT || dialect.isChatTemplate())) {
            throw new IllegalArgumentException("a " + dialect + " request is not for this SDK call (openai-chat or chat-template:NAME)");
        }
        return params(request.body());
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
