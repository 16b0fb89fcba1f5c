package dev.baton.consumer.dialect.sdk;

import java.time.Duration;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;

import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequest;

/**
 * Each provider's official client, pointed at a {@link LoopbackReceiver}: loopback base URL, a dummy key, no
 * retries, short timeouts, so a test never reaches the network and never waits long. Gemini's API version is
 * named ({@code v1beta}, the Gemini API's documented endpoint): with a base URL of its own and no version,
 * google-genai 2.6.0 posts to {@code /v1/}. {@link #send} sends one
 * dialect request through the matching adapter and client.
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
                .httpOptions(HttpOptions.builder().baseUrl(baseUrl).apiVersion("v1beta").timeout((int) TIMEOUT.toMillis())
                        .retryOptions(HttpRetryOptions.builder().attempts(1).build()).build())
                .build();
    }

    /** Sends the request through its dialect's adapter and SDK client (Gemini's model: {@link #GEMINI_MODEL}). */
    void send(ReceiverRequest request) {
        Dialect dialect = request.dialect();
        if (dialect == Dialect.OPENAI_CHAT || dialect.isChatTemplate()) {
            openAi.chat().completions().create(OpenAiChatAdapter.params(request));
        } else if (dialect == Dialect.OPENAI_RESPONSES) {
            openAi.responses().create(OpenAiResponsesAdapter.params(request));
        } else if (dialect == Dialect.ANTHROPIC_MESSAGES) {
            anthropic.messages().create(AnthropicMessagesAdapter.params(request));
        } else if (dialect == Dialect.GEMINI) {
            GeminiAdapter.Request typed = GeminiAdapter.request(request);
            gemini.models.generateContent(GEMINI_MODEL, typed.contents(), typed.config());
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
