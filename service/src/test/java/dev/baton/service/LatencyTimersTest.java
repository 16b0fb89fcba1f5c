package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.baton.processor.TenantLabels;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The latency histograms as /metrics shows them: fixed buckets, per allow-listed tenant, the rest under other. */
class LatencyTimersTest {

    private static final String E2E = "baton_handoff_snapshot_latency_seconds_bucket";

    @Test
    void shouldExposeEveryHistogramWithItsBucketsForEveryTenantLabelFromTheStart() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new LatencyTimers(registry, new TenantLabels(Set.of("acme")));

        String scrape = registry.scrape();

        for (String tenant : new String[] {"acme", "other"}) {
            assertThat(scrape)
                    .contains(E2E + "{tenant=\"" + tenant + "\",le=\"0.3\"} 0")
                    .contains(E2E + "{tenant=\"" + tenant + "\",le=\"+Inf\"} 0")
                    .contains("baton_handoff_render_seconds_bucket{tenant=\"" + tenant + "\",le=\"0.001\"} 0")
                    .contains("baton_receipt_outcome_latency_seconds_bucket{tenant=\"" + tenant + "\",le=\"0.3\"} 0");
        }
        // the buckets, and only them (no percentile histogram's dozens)
        assertThat(scrape.lines().filter(l -> l.startsWith(E2E + "{tenant=\"acme\"")).count())
                .isEqualTo(LatencyTimers.END_TO_END_BUCKETS.size() + 1);
    }

    @Test
    void shouldCountEachLatencyInItsBucketUnderItsTenantLabel() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        LatencyTimers timers = new LatencyTimers(registry, new TenantLabels(Set.of("acme")));

        timers.handoffToSnapshot("acme", 250);
        timers.handoffToSnapshot("acme", 40);
        timers.handoffToSnapshot("zeta", 4_000); // not allow-listed: other
        timers.render("acme", 3_000_000);
        timers.receiptToOutcome("zeta", 120);
        String scrape = registry.scrape();

        assertThat(scrape)
                .contains(E2E + "{tenant=\"acme\",le=\"0.025\"} 0")
                .contains(E2E + "{tenant=\"acme\",le=\"0.05\"} 1")
                .contains(E2E + "{tenant=\"acme\",le=\"0.2\"} 1")
                .contains(E2E + "{tenant=\"acme\",le=\"0.3\"} 2")
                .contains(E2E + "{tenant=\"acme\",le=\"+Inf\"} 2")
                .contains("baton_handoff_snapshot_latency_seconds_count{tenant=\"acme\"} 2")
                .contains(E2E + "{tenant=\"other\",le=\"2.0\"} 0")
                .contains(E2E + "{tenant=\"other\",le=\"5.0\"} 1")
                .contains("baton_handoff_render_seconds_bucket{tenant=\"acme\",le=\"0.002\"} 0")
                .contains("baton_handoff_render_seconds_bucket{tenant=\"acme\",le=\"0.005\"} 1")
                .contains("baton_receipt_outcome_latency_seconds_bucket{tenant=\"other\",le=\"0.1\"} 0")
                .contains("baton_receipt_outcome_latency_seconds_bucket{tenant=\"other\",le=\"0.2\"} 1")
                .doesNotContain("tenant=\"zeta\"");
    }
}
