package dev.baton.service;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.baton.processor.LatencyRecorder;
import dev.baton.processor.MetricCatalogue;
import dev.baton.processor.TenantLabels;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The latency histograms on {@code /metrics}: one Micrometer timer per {@link MetricCatalogue.Kind#HISTOGRAM} entry
 * and tenant label ({@code baton.metrics.tenants}, every other tenant under {@value TenantLabels#OTHER}), with fixed
 * Prometheus buckets (so that p50/p99 are {@code histogram_quantile} over {@code _bucket} and an alert can name a
 * bucket edge), all registered at start so that the series exist before the first hand-off.
 */
final class LatencyTimers implements LatencyRecorder {

    /** Bucket edges of the end-to-end latencies: around the 300 ms target, up to the 10 s a stalled commit takes. */
    static final List<Duration> END_TO_END_BUCKETS = millis(5, 10, 25, 50, 100, 200, 300, 500, 750, 1_000, 2_000,
            5_000, 10_000);
    /** Bucket edges of one render (milliseconds for a usual session, more for a very long one). */
    static final List<Duration> RENDER_BUCKETS = List.of(Duration.ofNanos(250_000), Duration.ofNanos(500_000),
            Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
            Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofMillis(1_000));

    private final TenantLabels tenants;
    private final Map<String, Timer> handoffToSnapshot = new HashMap<>();
    private final Map<String, Timer> render = new HashMap<>();
    private final Map<String, Timer> receiptToOutcome = new HashMap<>();

    /** Registers every timer in {@code registry} now (the maps are only read afterwards: thread-safe). */
    LatencyTimers(MeterRegistry registry, TenantLabels tenants) {
        this.tenants = tenants;
        for (String tenant : tenants.all()) {
            handoffToSnapshot.put(tenant, timer(registry, MetricCatalogue.HANDOFF_SNAPSHOT_LATENCY, tenant,
                    END_TO_END_BUCKETS));
            render.put(tenant, timer(registry, MetricCatalogue.HANDOFF_RENDER, tenant, RENDER_BUCKETS));
            receiptToOutcome.put(tenant, timer(registry, MetricCatalogue.RECEIPT_OUTCOME_LATENCY, tenant,
                    END_TO_END_BUCKETS));
        }
    }

    @Override
    public void handoffToSnapshot(String tenantId, long millis) {
        handoffToSnapshot.get(tenants.label(tenantId)).record(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void render(String tenantId, long nanos) {
        render.get(tenants.label(tenantId)).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void receiptToOutcome(String tenantId, long millis) {
        receiptToOutcome.get(tenants.label(tenantId)).record(millis, TimeUnit.MILLISECONDS);
    }

    private static Timer timer(MeterRegistry registry, MetricCatalogue metric, String tenant, List<Duration> buckets) {
        return Timer.builder(metric.meterName()).description(metric.description()).tag("tenant", tenant)
                .serviceLevelObjectives(buckets.toArray(Duration[]::new))
                .register(registry);
    }

    private static List<Duration> millis(long... edges) {
        return java.util.Arrays.stream(edges).mapToObj(Duration::ofMillis).toList();
    }
}
