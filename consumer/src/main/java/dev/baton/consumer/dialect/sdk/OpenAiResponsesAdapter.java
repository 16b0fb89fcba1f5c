package dev.baton.consumer.dialect.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.core.ObjectMappers;
import com.openai.models.responses.ResponseCreateParams;

/**
 * The {@code openai-responses} request (docs/receivers.md: {@code model}, {@code instructions}, {@code input}
 * items) as openai-java's {@link ResponseCreateParams}, read by the SDK's own JSON mapper; needs
 * {@code com.openai:openai-java} on the class path.
 *
 * <pre>{@code
 * JsonNode body = ReceiverRequests.build(snapshot, Dialect.OPENAI_RESPONSES, options).body();
 * ResponseCreateParams params = OpenAiResponsesAdapter.params(body);
 * Response reply = client.responses().create(params);   // OpenAIClient client
 * }</pre>
 */
public final class OpenAiResponsesAdapter {

    private OpenAiResponsesAdapter() {
    }

    /** The Responses body as the SDK's typed request. */
    public static ResponseCreateParams params(JsonNode body) {
        try {
            ResponseCreateParams.Body typed = ObjectMappers.jsonMapper()
                    .readValue(DialectJson.text(body), ResponseCreateParams.Body.class);
            return ResponseCreateParams.builder().body(typed).build();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a Responses body: " + e.getOriginalMessage(), e);
        }
    }
}
