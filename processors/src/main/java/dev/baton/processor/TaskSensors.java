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
 * <p>Metric names (all cumulative since start of the task):
 * <ul>
 *   <li>{@code applied-turns-total}: turns accepted in order or held for a gap (APPLIED or HELD);</li>
 *   <li>{@code duplicate-turns-total}, {@code duplicate-handoffs-total}: repeated seq / repeated handoff_id;</li>
 *   <li>{@code dead-letters-total} with tag {@code code}: records sent to the dead-letter topic, per code;</li>
 *   <li>{@code snapshots-emitted-total}: ContextSnapshots forwarded;</li>
 *   <li>{@code parked-handoffs-total}: hand-offs that had to wait for their as_of_seq;</li>
 *   <li>{@code expired-sessions-total}: session states deleted (closed + grace, or idle TTL);</li>
 *   <li>{@code punctuation-failures-total}: sessions whose wall-clock visit threw (logged, skipped);</li>
 *   <li>{@code render-time-ms-avg}, {@code render-time-ms-max}, {@code render-time-ms-total},
 *       {@code render-total}: time spent in {@code ContextEngine.render}.</li>
 * </ul>
 * and four gauges of the task's decoded-state cache ({@code baton.state.cache.max.bytes}):
 * {@code decoded-state-cache-bytes} (the weight it holds, bounded by that setting),
 * {@code decoded-state-cache-sessions} (how many decoded sessions it holds), and
 * {@code decoded-state-cache-hits-total} / {@code decoded-state-cache-misses-total} (events of a stored session found
 * decoded / read and decoded from the stores, counted since the task was created on this instance).
 * Sensors are created lazily, so a processor only registers what it records; {@link #close()} removes them.
 */
public final class TaskSensors implements AutoCloseable {
    public static final String GROUP = "baton-metrics";

    private final StreamsMetrics metrics;
    private final String sensorPrefix;
    private final Map<String, String> tags;
    private final Map<String, Sensor> counters = new LinkedHashMap<>();
    private final Map<ErrorCode, Sensor> deadLetters = new EnumMap<>(ErrorCode.class);
    private final List<Sensor> all = new ArrayList<>();
    private Sensor render;

    /** @param owner distinguishes processors of one task that register the same metric (sensor names are global) */
    public TaskSensors(StreamsMetrics metrics, String taskId, String owner) {
        this.metrics = metrics;
        this.sensorPrefix = "baton." + owner + "." + taskId + "." + Thread.currentThread().getName() + ".";
        this.tags = Map.of("task-id", taskId, "thread-id", Thread.currentThread().getName());
    }

    public void appliedTurn() {
        counter("applied-turns-total", "Turns applied in seq order or held for a gap").record();
    }

    public void duplicateTurn() {
        counter("duplicate-turns-total", "Turns ignored because their seq was already applied or held").record();
    }

    public void duplicateHandoff() {
        counter("duplicate-handoffs-total", "Hand-offs ignored because their handoff_id was seen").record();
    }

    public void snapshotEmitted() {
        counter("snapshots-emitted-total", "ContextSnapshots forwarded to the snapshots topic").record();
    }

    public void parkedHandoff() {
        counter("parked-handoffs-total", "Hand-offs that waited for their as_of_seq").record();
    }

    public void expiredSession() {
        counter("expired-sessions-total", "Session states deleted after Closed + grace or the idle TTL").record();
    }

    public void punctuationFailure() {
        counter("punctuation-failures-total", "Sessions whose wall-clock visit failed (logged, skipped)").record();
    }

    /** Thread-safe: a production exception handler may count from the producer's thread. */
    public synchronized void deadLetter(ErrorCode code) {
        deadLetters.computeIfAbsent(code, c -> {
            Sensor s = newSensor("dead-letters." + c.name());
            Map<String, String> codeTags = new LinkedHashMap<>(tags);
            codeTags.put("code", c.name());
            s.add(new MetricName("dead-letters-total", GROUP, "Records sent to the dead-letter topic, per code",
                    codeTags), new CumulativeCount());
            return s;
        }).record();
    }

    public void renderNanos(long nanos) {
        if (render == null) {
            render = newSensor("render-time");
            render.add(name("render-time-ms-avg", "Average time of one ContextEngine.render"), new Avg());
            render.add(name("render-time-ms-max", "Longest ContextEngine.render"), new Max());
            render.add(name("render-time-ms-total", "Total time spent in ContextEngine.render"), new CumulativeSum());
            render.add(name("render-total", "Number of ContextEngine.render calls"), new CumulativeCount());
        }
        render.record(nanos / 1_000_000.0);
    }

    /**
     * A gauge: {@code value} read whenever the metric is read (from the reporter's thread; a slightly stale value is
     * fine), nothing recorded on the hot path.
     */
    public void gauge(String metric, String description, LongSupplier value) {
        Sensor s = newSensor(metric);
        s.add(name(metric, description), new MeasurableStat() {
            @Override
            public void record(MetricConfig config, double v, long timeMs) {
            }

            @Override
            public double measure(MetricConfig config, long nowMs) {
                return value.getAsLong();
            }
        });
    }

    private Sensor counter(String metric, String description) {
        return counters.computeIfAbsent(metric, m -> {
            Sensor s = newSensor(m);
            s.add(name(m, description), new CumulativeCount());
            return s;
        });
    }

    private Sensor newSensor(String suffix) {
        Sensor s = metrics.addSensor(sensorPrefix + suffix, Sensor.RecordingLevel.INFO);
        all.add(s);
        return s;
    }

    private MetricName name(String metric, String description) {
        return new MetricName(metric, GROUP, description, tags);
    }

    @Override
    public synchronized void close() {
        all.forEach(metrics::removeSensor);
        all.clear();
        counters.clear();
        deadLetters.clear();
        render = null;
    }
}
