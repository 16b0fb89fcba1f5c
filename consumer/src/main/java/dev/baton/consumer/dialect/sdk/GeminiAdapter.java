package dev.baton.consumer.dialect.sdk;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.genai.types.Content;
import com.google.genai.types.GenerateContentConfig;

import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequest;

/**
 * The {@code gemini} request (docs/receivers.md: {@code systemInstruction}, {@code contents}) as the arguments of
 * google-genai's {@code Models.generateContent(model, contents, config)}: the contents and a config that carries the
 * system instruction. Each part is read by the SDK's own JSON mapping ({@link Content#fromJson(String)}). The model
 * is not in the body (Gemini puts it in the URL): the caller passes it. Needs {@code com.google.genai:google-genai}
 * on the class path.
 *
 * <pre>{@code
 * ReceiverRequest request = ReceiverRequests.build(snapshot, Dialect.GEMINI, options);
 * GeminiAdapter.Request typed = GeminiAdapter.request(request);
 * GenerateContentResponse reply = client.models.generateContent(options.model(), typed.contents(), typed.config());
 * }</pre>
 */
public final class GeminiAdapter {

    /** What {@code generateContent} takes besides the model. */
    public record Request(List<Content> contents, GenerateContentConfig config) {
        public Request {
            contents = List.copyOf(contents);
        }
    }

    private GeminiAdapter() {
    }

    /** The request's body as the SDK's typed request; the request must be of {@code gemini}. */
    public static Request request(ReceiverRequest request) {
        Dialect dialect = request.dialect();
        if (dialect != Dialect.GEMINI) {
            throw new IllegalArgumentException("a " + dialect + " request is not for this SDK call (gemini)");
        }
        return request(request.body());
    }

    /** The body's {@code contents} and {@code systemInstruction} as the SDK's types. */
    public static Request request(JsonNode body) {
        DialectJson.text(body);
        JsonNode contents = body.path("contents");
        if (!contents.isArray()) {
            throw new IllegalArgumentException("a gemini body has a contents array");
        }
        List<Content> typed = new ArrayList<>();
        for (JsonNode content : contents) {
            typed.add(Content.fromJson(DialectJson.text(content)));
        }
        GenerateContentConfig.Builder config = GenerateContentConfig.builder();
        if (body.has("systemInstruction")) {
            config.systemInstruction(Content.fromJson(DialectJson.text(body.get("systemInstruction"))));
        }
        return new Request(typed, config.build());
    }
}
