package dev.baton.consumer.dialect;

/**
 * The two options of a dialect's request (docs/receivers.md): the {@code model} named in the body (Gemini takes it in
 * the URL, not the body) and {@code max_tokens}, which only {@code anthropic-messages} requires.
 */
public record RequestOptions(String model, int maxTokens) {

    public static final String DEFAULT_MODEL = "local-model";
    public static final int DEFAULT_MAX_TOKENS = 4096;

    public RequestOptions {
        if (model == null || model.isEmpty()) {
            throw new IllegalArgumentException("model must not be empty");
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("max_tokens must be at least 1, was " + maxTokens);
        }
    }

    /** The kits' defaults: {@code local-model}, 4096. */
    public static RequestOptions defaults() {
        return new RequestOptions(DEFAULT_MODEL, DEFAULT_MAX_TOKENS);
    }

    public static RequestOptions of(String model) {
        return new RequestOptions(model, DEFAULT_MAX_TOKENS);
    }
}
