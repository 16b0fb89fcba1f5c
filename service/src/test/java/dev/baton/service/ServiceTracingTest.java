package dev.baton.service;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The switch of {@code baton run}'s tracing: on only when the OTEL_* settings ask for traces. */
class ServiceTracingTest {

    private static boolean wanted(Map<String, String> settings) {
        return ServiceTracing.wanted(settings::get);
    }

    @Test
    void shouldStayOffWithoutAnyTraceSetting() {
        assertThat(wanted(Map.of())).isFalse();
        assertThat(wanted(Map.of("otel.service.name", "baton", "otel.metrics.exporter", "otlp"))).isFalse();
    }

    @Test
    void shouldTurnOnForATracesExporterOrAnOtlpEndpoint() {
        assertThat(wanted(Map.of("otel.traces.exporter", "otlp"))).isTrue();
        assertThat(wanted(Map.of("otel.exporter.otlp.endpoint", "http://collector:4318"))).isTrue();
        assertThat(wanted(Map.of("otel.exporter.otlp.traces.endpoint", "http://collector:4318/v1/traces"))).isTrue();
    }

    @Test
    void shouldStayOffWhenDisabledOrTheExporterIsNone() {
        assertThat(wanted(Map.of("otel.sdk.disabled", "true", "otel.traces.exporter", "otlp"))).isFalse();
        assertThat(wanted(Map.of("otel.traces.exporter", "none",
                "otel.exporter.otlp.endpoint", "http://collector:4318"))).isFalse();
    }

    @Test
    void shouldBuildNoSdkWhenOff() {
        try (ServiceTracing tracing = ServiceTracing.start(Map.of("otel.sdk.disabled", "true"))) {
            assertThat(tracing.on()).isFalse();
            assertThat(tracing.handoffs().on()).isFalse();
        }
    }
}
