package dev.baton.service;

import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

import dev.baton.deadletter.ErrorCode;
import dev.baton.processor.MetricCatalogue;
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

    ApplicationMeters(KafkaStreams streams) {
        this.streams = streams;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (MetricCatalogue metric : MetricCatalogue.values()) {
            if (metric.streamsName() == null || metric.meterName() == null) continue;
            if (metric.labels().contains("code")) {
                for (ErrorCode code : ErrorCode.values()) register(registry, metric, code.name());
            } else {
                register(registry, metric, null);
            }
        }
    }

    private void register(MeterRegistry registry, MetricCatalogue metric, String code) {
        ToDoubleFunction<KafkaStreams> value = metric.aggregate() == MetricCatalogue.Aggregate.MAX
                ? max(metric.streamsName()) : sum(metric.streamsName(), code);
        if (metric.kind() == MetricCatalogue.Kind.COUNTER) {
            FunctionCounter.Builder<KafkaStreams> b = FunctionCounter.builder(metric.meterName(), streams, value)
                    .description(metric.description()).baseUnit(metric.unit());
            if (code != null) b.tag("code", code);
            b.register(registry);
        } else {
            Gauge.Builder<KafkaStreams> b = Gauge.builder(metric.meterName(), streams, value)
                    .description(metric.description()).baseUnit(metric.unit());
            if (code != null) b.tag("code", code);
            b.register(registry);
        }
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
