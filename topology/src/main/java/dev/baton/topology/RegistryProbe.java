package dev.baton.topology;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

import dev.baton.config.BatonConfig;
import dev.baton.serde.HttpSchemaRegistryClient;

/** Whether the configured schema registry answers, for readiness (module service's {@code /readyz}). */
public final class RegistryProbe {
    private RegistryProbe() {
    }

    /**
     * A probe of the configured HTTP schema registry ({@code GET /subjects}, with the configured credentials and trust
     * store): returns when it answers, throws with the reason (no credentials in it) when it does not. Empty when the
     * format is not Avro or the registry is not an HTTP one ({@code mock://}).
     */
    public static Optional<Runnable> of(BatonConfig config, Duration timeout) {
        return config.schemaRegistryUrl()
                .filter(u -> config.format() == BatonConfig.Format.AVRO)
                .filter(u -> u.trim().toLowerCase(Locale.ROOT).startsWith("http"))
                .map(url -> new HttpSchemaRegistryClient(url.trim(), timeout, timeout, config.registryOptions())::ping);
    }
}
