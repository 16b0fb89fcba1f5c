package dev.baton.processor;

import dev.baton.deadletter.ErrorCode;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MeasurableStat;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.streams.StreamsMetrics;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Baton's own counters, registered in Kafka Streams' metrics registry ({@code context.metrics()}), so that they are
 * reported wherever the Streams metrics are: {@code KafkaStreams#metrics()}, JMX, and Prometheus through Micrometer's
 * {@code KafkaStreamsMetrics} binder (which `baton run` binds). One instance per processor per task; every metric
 * carries the tags {@code task-id} and {@code thread-id} and sits in group {@value #GROUP}; sum over tasks for the
 * application's total.
 *
 * <p>The metrics, their names and descriptions are those of {@link MetricCatalogue} (all cumulative since the
 * start of the task, but the gauges). {@code dead-letters-total} is counted through {@link DeadLetterCounter}, which
 * the exception handlers share.
 * Sensors are created lazily, so a processor only registers what it records; {@link #close()} removes them.
 */
public final class TaskSensors implements AutoCloseable {
    public static final String GROUP = "baton-metrics";

    private final StreamsMetrics metrics;
    private final String sensorPrefix;
    private final Map<String, String> tags;
    private final Map<MetricCatalogue, Sensor> counters = new EnumMap<>(MetricCatalogue.class);
    private final Map<ErrorCode, Sensor> deadLetters = new EnumMap<>(ErrorCode.class);
    private final Map<String, Sensor> labelledCounters = new java.util.HashMap<>();
    private final List<Sensor> all = new ArrayList<>();
    private Sensor render;

    /** @param owner distinguishes processors of one task that register the same metric (sensor names are global) */
    public TaskSensors(StreamsMetrics metrics, String taskId, String owner) {
        this.metrics = metrics;
        this.sensorPrefix = "baton." + owner + "." + taskId + "." + Thread.currentThread().getName() + ".";
        this.tags = Map.of("task-id", taskId, "thread-id", Thread.currentThread().getName());
    }

    public void appliedTurn() {
        counter(MetricCatalogue.APPLIED_TURNS).record();
    }

    public void duplicateTurn() {
        counter(MetricCatalogue.DUPLICATE_TURNS).record();
    }

    public void duplicateHandoff() {
        counter(MetricCatalogue.DUPLICATE_HANDOFFS).record();
    }

    public void snapshotEmitted() {
        counter(MetricCatalogue.SNAPSHOTS_EMITTED).record();
    }

    public void parkedHandoff() {
        counter(MetricCatalogue.PARKED_HANDOFFS).record();
    }

    public void expiredSession() {
        counter(MetricCatalogue.EXPIRED_SESSIONS).record();
    }

    public void punctuationFailure() {
        counter(MetricCatalogue.PUNCTUATION_FAILURES).record();
    }

    public void policyRecordRefused() {
        counter(MetricCatalogue.POLICY_RECORDS_REFUSED).record();
    }

    /** Thread-safe: a production exception handler may count from the producer's thread. */
    public synchronized void deadLetter(ErrorCode code) {
        deadLetters.computeIfAbsent(code, c -> {
            Sensor s = newSensor("dead-letters." + c.name());
            Map<String, String> codeTags = new LinkedHashMap<>(tags);
            codeTags.put("code", c.name());
            s.add(new MetricName(MetricCatalogue.DEAD_LETTERS.streamsName(), GROUP,
                    MetricCatalogue.DEAD_LETTERS.description(), codeTags), new CumulativeCount());
            return s;
        }).record();
    }

    public void renderNanos(long nanos) {
        if (render == null) {
            render = newSensor("render-time");
            render.add(name(MetricCatalogue.RENDER_TIME_AVG), new Avg());
            render.add(name(MetricCatalogue.RENDER_TIME_MAX), new Max());
            render.add(name(MetricCatalogue.RENDER_TIME), new CumulativeSum());
            render.add(name(MetricCatalogue.RENDER), new CumulativeCount());
        }
        render.record(nanos / 1_000_000.0);
    }

    /**
     * A gauge: {@code value} read whenever the metric is read (from the reporter's thread; a slightly stale value is
     * fine), nothing recorded on the hot path.
     */
    public void gauge(MetricCatalogue metric, LongSupplier value) {
        Sensor s = newSensor(metric.streamsName());
        s.add(name(metric), new MeasurableStat() {
            @Override
            public void record(MetricConfig config, double v, long timeMs) {
            }

            @Override
            public double measure(MetricConfig config, long nowMs) {
                return value.getAsLong();
            }
        });
    }

    /**
     * Adds {@code amount} to a counter (a sum) with labels beyond the task's tags ({@code labels}: name, value, name,
     * value, ...; bounded sets, e.g. tenant labels; none for a plain counter). A metric is counted either here or
     * through the dedicated methods above, never both.
     */
    public void count(MetricCatalogue metric, double amount, String... labels) {
        Map<String, String> all = labelled(labels);
        labelledCounters.computeIfAbsent(metric.streamsName() + all, n -> {
            Sensor s = newSensor(metric.streamsName() + "." + String.join(".", labels));
            s.add(new MetricName(metric.streamsName(), GROUP, metric.description(), all), new CumulativeSum());
            return s;
        }).record(amount);
    }

    /** A gauge with labels beyond the task's tags ({@code labels}: name, value, ...). */
    public void gauge(MetricCatalogue metric, LongSupplier value, String... labels) {
        Sensor s = newSensor(metric.streamsName() + "." + String.join(".", labels));
        s.add(new MetricName(metric.streamsName(), GROUP, metric.description(), labelled(labels)),
                new MeasurableStat() {
                    @Override
                    public void record(MetricConfig config, double v, long timeMs) {
                    }

                    @Override
                    public double measure(MetricConfig config, long nowMs) {
                        return value.getAsLong();
                    }
                });
    }

    private Map<String, String> labelled(String... labels) {
        Map<String, String> all = new LinkedHashMap<>(tags);
        for (int i = 0; i + 1 < labels.length; i += 2) all.put(labels[i], labels[i + 1]);
        return all;
    }

    private Sensor counter(MetricCatalogue metric) {
        return counters.computeIfAbsent(metric, m -> {
            Sensor s = newSensor(m.streamsName());
            s.add(name(m), new CumulativeCount());
            return s;
        });
    }

    private Sensor newSensor(String suffix) {
        Sensor s = metrics.addSensor(sensorPrefix + suffix, Sensor.RecordingLevel.INFO);
        all.add(s);
        return s;
    }

    private MetricName name(MetricCatalogue metric) {
        return new MetricName(metric.streamsName(), GROUP, metric.description(), tags);
    }

    @Override
    public synchronized void close() {
        all.forEach(metrics::removeSensor);
        all.clear();
        counters.clear();
        labelledCounters.clear();
        deadLetters.clear();
        render = null;
    }
}
