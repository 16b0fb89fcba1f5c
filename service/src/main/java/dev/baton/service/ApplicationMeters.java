package dev.baton.service;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

import dev.baton.deadletter.ErrorCode;
import dev.baton.processor.MetricCatalogue;
import dev.baton.processor.Receipt;
import dev.baton.processor.TenantLabels;
import dev.baton.processor.TaskSensors;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Baton's own counters ({@link TaskSensors}, one set per task in Kafka Streams' registry) as
 * application-wide Micrometer meters, registered from the start (the Streams binder only sees a
 * task's sensors a minute after they appear) and combined over tasks at every scrape: every entry of
 * {@link MetricCatalogue} that has both a Streams metric and a meter, under the meter's name,
 * description and unit ({@code baton_applied_turns_total}, {@code baton_dead_letters_total{code=...}}, ...).
 */
final class ApplicationMeters implements MeterBinder {

    private final KafkaStreams streams;
    private final TenantLabels tenants;

    ApplicationMeters(KafkaStreams streams) {
        this(streams, TenantLabels.none());
    }

    /** @param tenants the tenant labels of the per-tenant meters ({@code baton.metrics.tenants} and {@code other}) */
    ApplicationMeters(KafkaStreams streams, TenantLabels tenants) {
        this.streams = streams;
        this.tenants = tenants;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (MetricCatalogue metric : MetricCatalogue.values()) {
            if (metric.streamsName() == null || metric.meterName() == null) continue;
            // one meter per combination of the metric's label values (every set is bounded)
            List<Map<String, String>> combinations = List.of(Map.of());
            for (String label : metric.labels()) {
                List<Map<String, String>> next = new ArrayList<>();
                for (Map<String, String> c : combinations) {
                    for (String v : values(label)) {
                        Map<String, String> m = new LinkedHashMap<>(c);
                        m.put(label, v);
                        next.add(m);
                    }
                }
                combinations = next;
            }
            for (Map<String, String> tags : combinations) register(registry, metric, tags);
        }
    }

    private List<String> values(String label) {
        return switch (label) {
            case "code" -> Arrays.stream(ErrorCode.values()).map(Enum::name).toList();
            case "tenant" -> tenants.all();
            case "count" -> List.of("exact", "estimate");
            case "outcome" -> Arrays.stream(Receipt.Result.values()).map(Enum::name).toList();
            default -> throw new IllegalStateException("no values known for label " + label);
        };
    }

    private void register(MeterRegistry registry, MetricCatalogue metric, Map<String, String> tags) {
        ToDoubleFunction<KafkaStreams> value = metric.aggregate() == MetricCatalogue.Aggregate.MAX
                ? max(metric.streamsName()) : sum(metric.streamsName(), tags);
        if (metric.kind() == MetricCatalogue.Kind.COUNTER) {
            FunctionCounter.Builder<KafkaStreams> b = FunctionCounter.builder(metric.meterName(), streams, value)
                    .description(metric.description()).baseUnit(metric.unit());
            tags.forEach(b::tag);
            b.register(registry);
        } else {
            Gauge.Builder<KafkaStreams> b = Gauge.builder(metric.meterName(), streams, value)
                    .description(metric.description()).baseUnit(metric.unit());
            tags.forEach(b::tag);
            b.register(registry);
        }
    }

    private static ToDoubleFunction<KafkaStreams> sum(String metric, Map<String, String> tags) {
        return streams -> {
            double total = 0;
            for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
                MetricName n = e.getKey();
                if (n.group().equals(TaskSensors.GROUP) && n.name().equals(metric)
                        && matches(n.tags(), tags)
                        && e.getValue().metricValue() instanceof Number v && !Double.isNaN(v.doubleValue())) {
                    total += v.doubleValue();
                }
            }
            return total;
        };
    }

    private static boolean matches(Map<String, String> have, Map<String, String> want) {
        for (Map.Entry<String, String> w : want.entrySet()) {
            if (!w.getValue().equals(have.get(w.getKey()))) return false;
        }
        return true;
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
