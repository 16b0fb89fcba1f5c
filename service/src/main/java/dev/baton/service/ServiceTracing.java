package dev.baton.service;

import dev.baton.processor.HandoffTracing;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;

import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The OpenTelemetry SDK of {@code baton run}, configured only by the standard {@code OTEL_*} environment variables
 * (or their {@code otel.*} system properties) through the SDK's autoconfigure module, and OFF unless they ask for
 * traces (docs/operations.md, "Tracing"): on when {@code OTEL_SDK_DISABLED} is not {@code true} and either
 * {@code OTEL_TRACES_EXPORTER} names an exporter other than {@code none}, or (no {@code OTEL_TRACES_EXPORTER})
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} is set. Off, no SDK is built:
 * no exporter thread, no span, no header.
 *
 * <p>Baton's defaults, each overridden by its variable: service name {@code baton}, OTLP protocol
 * {@code http/protobuf} (the specification's default), metrics and logs exporters {@code none} (Baton's metrics are
 * Prometheus's, on /metrics).
 */
public final class ServiceTracing implements AutoCloseable {
    static final Map<String, String> DEFAULTS = Map.of("otel.service.name", "baton",
            "otel.exporter.otlp.protocol", "http/protobuf", "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none");

    private final OpenTelemetrySdk sdk;
    private final HandoffTracing handoffs;

    private ServiceTracing(OpenTelemetrySdk sdk) {
        this.sdk = sdk;
        this.handoffs = sdk == null ? HandoffTracing.OFF : HandoffTracing.of(sdk);
    }

    /** From this process's environment and system properties. */
    public static ServiceTracing fromEnvironment() {
        return start(Map.of());
    }

    /**
     * From the environment and system properties, {@code overrides} (in {@code otel.*} property form) taking
     * precedence over both (tests).
     */
    static ServiceTracing start(Map<String, String> overrides) {
        UnaryOperator<String> setting = name -> {
            String v = overrides.get(name);
            if (v == null) v = System.getProperty(name);
            if (v == null) v = System.getenv(name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
            return v == null || v.isBlank() ? null : v.trim();
        };
        if (!wanted(setting)) return new ServiceTracing(null);
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> DEFAULTS)
                .addPropertiesCustomizer(config -> overrides)
                .disableShutdownHook() // closed by the service after Kafka Streams: the last spans are flushed
                .build().getOpenTelemetrySdk();
        return new ServiceTracing(sdk);
    }

    /** The switch: see the class comment. {@code setting} reads an {@code otel.*} name (null: unset). */
    static boolean wanted(UnaryOperator<String> setting) {
        if ("true".equalsIgnoreCase(setting.apply("otel.sdk.disabled"))) return false;
        String exporter = setting.apply("otel.traces.exporter");
        if (exporter != null) return !"none".equalsIgnoreCase(exporter);
        return setting.apply("otel.exporter.otlp.endpoint") != null
                || setting.apply("otel.exporter.otlp.traces.endpoint") != null;
    }

    public boolean on() {
        return sdk != null;
    }

    /** What the topology traces with: {@link HandoffTracing#OFF} when off. */
    public HandoffTracing handoffs() {
        return handoffs;
    }

    /** Flushes the spans still buffered and stops the exporter (at most a few seconds). */
    @Override
    public void close() {
        if (sdk != null) sdk.close();
    }
}
