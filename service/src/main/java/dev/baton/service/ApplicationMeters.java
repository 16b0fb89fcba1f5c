package dev.baton.service;

import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

import dev.baton.deadletter.ErrorCode;
import dev.baton.processor.TaskSensors;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Baton's own counters ({@link TaskSensors}, one set per task in Kafka Streams' registry) as
 * application-wide Micrometer meters, registered from the start (the Streams binder only sees a
 * task's sensors a minute after they appear) and summed over tasks at every scrape:
 * {@code baton_applied_turns_total}, {@code baton_dead_letters_total{code=...}}, ...
 */
final class ApplicationMeters implements MeterBinder {

    private static final Map<String, String> COUNTERS = Map.of(
            "applied-turns-total", "Turns applied in seq order or held for a gap",
            "duplicate-turns-total", "Turns ignored because their seq was already applied or held",
            "duplicate-handoffs-total", "Hand-offs ignored because their handoff_id was seen",
            "snapshots-emitted-total", "ContextSnapshots written to the snapshots topic",
            "parked-handoffs-total", "Hand-offs that waited for their as_of_seq",
            "expired-sessions-total", "Session states deleted after Closed + grace or the idle TTL",
            "punctuation-failures-total", "Sessions whose wall-clock visit failed (logged, skipped)",
            "render-total", "ContextEngine.render calls");

    private final KafkaStreams streams;

    ApplicationMeters(KafkaStreams streams) {
        this.streams = streams;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        COUNTERS.forEach((name, description) ->
                FunctionCounter.builder("baton." + meterName(name), streams, sum(name, null))
                        .description(description).register(registry));
        for (ErrorCode code : ErrorCode.values()) {
            FunctionCounter.builder("baton.dead.letters", streams, sum("dead-letters-total", code.name()))
                    .description("Records sent to the dead-letter topic, per code").tag("code", code.name())
                    .register(registry);
        }
        FunctionCounter.builder("baton.render.time", streams, sum("render-time-ms-total", null))
                .description("Time spent in ContextEngine.render").baseUnit("milliseconds").register(registry);
        Gauge.builder("baton.render.time.max", streams, max("render-time-ms-max"))
                .description("Longest ContextEngine.render in the current window").baseUnit("milliseconds")
                .register(registry);
        Gauge.builder("baton.decoded.state.cache", streams, sum("decoded-state-cache-bytes", null))
                .description("Weight held by the decoded-state caches of all tasks (each bounded by "
                        + "baton.state.cache.max.bytes)").baseUnit("bytes").register(registry);
        Gauge.builder("baton.decoded.state.cache.sessions", streams, sum("decoded-state-cache-sessions", null))
                .description("Decoded sessions held by the decoded-state caches of all tasks").register(registry);
        FunctionCounter.builder("baton.decoded.state.cache.hits", streams, sum("decoded-state-cache-hits-total", null))
                .description("Events whose session state was found decoded in a decoded-state cache")
                .register(registry);
        FunctionCounter.builder("baton.decoded.state.cache.misses", streams,
                        sum("decoded-state-cache-misses-total", null))
                .description("Events whose stored session state was read and decoded (not in a decoded-state cache)")
                .register(registry);
    }

    /** {@code applied-turns-total} → {@code applied.turns} (Prometheus adds {@code _total} to counters). */
    static String meterName(String metric) {
        return metric.replaceFirst("-total$", "").replace('-', '.');
    }

    private static ToDoubleFunction<KafkaStreams> sum(String metric, String code) {
        return streams -> {
            double total = 0;
            for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
                MetricName n = e.getKey();
                if (n.group().equals(TaskSensors.GROUP) && n.name().equals(metric)
                        && (code == null || code.equals(n.tags().get("code")))
                        && e.getValue().metricValue() instanceof Number v && !Double.isNaN(v.doubleValue())) {
                    total += v.doubleValue();
                }
            }
            return total;
        };
    }

    private static ToDoubleFunction<KafkaStreams> max(String metric) {
        return streams -> {
            double max = 0;
            for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
                MetricName n = e.getKey();
                if (n.group().equals(TaskSensors.GROUP) && n.name().equals(metric)
                        && e.getValue().metricValue() instanceof Number v && !Double.isNaN(v.doubleValue())
                        && !Double.isInfinite(v.doubleValue())) {
                    max = Math.max(max, v.doubleValue());
                }
            }
            return max;
        };
    }
}
