package dev.baton.consumer.dialect.sdk;

import com.anthropic.core.ObjectMappers;
import com.anthropic.models.messages.MessageCreateParams;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequest;

/**
 * The {@code anthropic-messages} request (docs/receivers.md: {@code model}, {@code max_tokens}, {@code system},
 * strictly alternating {@code messages}) as anthropic-java's {@link MessageCreateParams}, read by the SDK's own JSON
 * mapper; needs {@code com.anthropic:anthropic-java} on the class path.
 *
 * <pre>{@code
 * ReceiverRequest request = ReceiverRequests.build(snapshot, Dialect.ANTHROPIC_MESSAGES, options);
 * MessageCreateParams params = AnthropicMessagesAdapter.params(request);
 * Message reply = client.messages().create(params);   // AnthropicClient client
 * }</pre>
 */
public final class AnthropicMessagesAdapter {

    private AnthropicMessagesAdapter() {
    }

    /** The request's body as the SDK's typed request; the request must be of {@code anthropic-messages}. */
    public static MessageCreateParams params(ReceiverRequest request) {
        Dialect dialect = request.dialect();
        if (dialect != Dialect.ANTHROPIC_MESSAGES) {
            throw new IllegalArgumentException("a " + dialect + " request is not for this SDK call (anthropic-messages)");
        }
        return params(request.body());
    }

    /** The Messages body as the SDK's typed request. */
    public static MessageCreateParams params(JsonNode body) {
        try {
            MessageCreateParams.Body typed = ObjectMappers.jsonMapper()
                    .readValue(DialectJson.text(body), MessageCreateParams.Body.class);
            return MessageCreateParams.builder().body(typed).build();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a Messages body: " + e.getOriginalMessage(), e);
        }
    }
}
