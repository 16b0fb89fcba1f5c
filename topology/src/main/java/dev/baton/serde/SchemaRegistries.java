package dev.baton.serde;

import java.util.Locale;

/**
 * Picks the registry client for a URL: {@code mock://SCOPE} → {@link MockSchemaRegistry#forScope(String)};
 * {@code http://...} or {@code https://...} (a Confluent-compatible API base URL, possibly with a path such as
 * Apicurio's {@code http://host:8080/apis/ccompat/v7}; several comma-separated URLs are tried in turn) →
 * {@link HttpSchemaRegistryClient}.
 */
public final class SchemaRegistries {
    public static final String MOCK_PREFIX = "mock://";

    private SchemaRegistries() {
    }

    public static SchemaRegistryClient forUrl(String url) {
        return forUrl(url, RegistryOptions.DEFAULTS);
    }

    /** With authentication, trust store and auto-registration from {@code options} (HTTP registries only). */
    public static SchemaRegistryClient forUrl(String url, RegistryOptions options) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("a schema registry URL is required (http(s)://HOST:PORT[/path] or mock://NAME)");
        }
        String trimmed = url.trim();
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (lower.startsWith(MOCK_PREFIX)) {
            String scope = trimmed.substring(MOCK_PREFIX.length());
            if (scope.isEmpty()) throw new IllegalArgumentException("mock:// URL needs a scope name, e.g. mock://demo");
            return MockSchemaRegistry.forScope(scope);
        }
        if (lower.startsWith("http://") || lower.startsWith("https://")) {
            return new HttpSchemaRegistryClient(trimmed, java.time.Duration.ofSeconds(5),
                    java.time.Duration.ofSeconds(30), options);
        }
        throw new IllegalArgumentException("unsupported schema registry URL '" + RegistryOptions.redact(trimmed)
                + "': expected http(s)://HOST:PORT[/path] or mock://NAME");
    }
}
