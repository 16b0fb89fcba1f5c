package dev.baton.consumer.dialect.sdk;

import java.time.Duration;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;

/**
 * Each provider's official client, pointed at a {@link LoopbackReceiver}: loopback base URL, a dummy key, no
 * retries, short timeouts, so a test never reaches the network and never waits long. {@link #send} sends one
 * dialect body through the matching adapter and client.
 */
final class SdkSenders implements AutoCloseable {

    static final String GEMINI_MODEL = "m-test";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final OpenAIClient openAi;
    private final AnthropicClient anthropic;
    private final Client gemini;

    SdkSenders(String baseUrl) {
        openAi = OpenAIOkHttpClient.builder().apiKey("test-key").baseUrl(baseUrl + "/v1").maxRetries(0).timeout(TIMEOUT)
                .build();
        anthropic = AnthropicOkHttpClient.builder().apiKey("test-key").baseUrl(baseUrl).maxRetries(0).timeout(TIMEOUT)
                .build();
        gemini = Client.builder().apiKey("test-key").vertexAI(false)
                .httpOptions(HttpOptions.builder().baseUrl(baseUrl).timeout((int) TIMEOUT.toMillis())
                        .retryOptions(HttpRetryOptions.builder().attempts(1).build()).build())
                .build();
    }

    /** Sends {@code body}, a request of {@code dialect} ({@code openai-chat}, {@code chat-template:…}, …). */
    void send(String dialect, JsonNode body) {
        if (dialect.equals("openai-chat") || dialect.startsWith("chat-template:")) {
            openAi.chat().completions().create(OpenAiChatAdapter.params(body));
        } else if (dialect.equals("openai-responses")) {
            openAi.responses().create(OpenAiResponsesAdapter.params(body));
        } else if (dialect.equals("anthropic-messages")) {
            anthropic.messages().create(AnthropicMessagesAdapter.params(body));
        } else if (dialect.equals("gemini")) {
            GeminiAdapter.Request request = GeminiAdapter.request(body);
            gemini.models.generateContent(GEMINI_MODEL, request.contents(), request.config());
        } else {
            throw new IllegalArgumentException("no SDK for dialect " + dialect);
        }
    }

    @Override
    public void close() {
        openAi.close();
        anthropic.close();
        gemini.close();
    }
}
