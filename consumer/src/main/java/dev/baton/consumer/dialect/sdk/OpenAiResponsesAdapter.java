package dev.baton.consumer.dialect.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.core.ObjectMappers;
import com.openai.models.responses.ResponseCreateParams;

import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequest;

/**
 * The {@code openai-responses} request (docs/receivers.md: {@code model}, {@code instructions}, {@code input}
 * items) as openai-java's {@link ResponseCreateParams}, read by the SDK's own JSON mapper; needs
 * {@code com.openai:openai-java} on the class path.
 *
 * <pre>{@code
 * ReceiverRequest request = ReceiverRequests.build(snapshot, Dialect.OPENAI_RESPONSES, options);
 * ResponseCreateParams params = OpenAiResponsesAdapter.params(request);
 * Response reply = client.responses().create(params);   // OpenAIClient client
 * }</pre>
 */
public final class OpenAiResponsesAdapter {

    private OpenAiResponsesAdapter() {
    }

    /** The request's body as the SDK's typed request; the request must be of {@code openai-responses}. */
    public static ResponseCreateParams params(ReceiverRequest request) {
        Dialect dialect = request.dialect();
        if (dialect != Dialect.OPENAI_RESPONSES) {
            throw new IllegalArgumentException("a " + dialect + " request is not for this SDK call (openai-responses)");
        }
        return params(request.body());
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
