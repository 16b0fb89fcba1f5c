package dev.baton.app;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;

import dev.baton.config.BatonConfig;
import dev.baton.processor.BatonMetrics;
import dev.baton.topology.BatonTopology;

/**
 * Baton's topology running in this JVM: {@link KafkaStreams} with the configuration's properties,
 * a failure recorded instead of lost in a stream thread, and a close that leaves the consumer group
 * at once (so a restarted or replacing instance gets the partitions without waiting for a timeout).
 */
public final class StreamsApp implements AutoCloseable {

    private final KafkaStreams streams;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    public StreamsApp(BatonConfig config) {
        Topology topology = BatonTopology.buildTopology(config);
        streams = new KafkaStreams(topology, BatonTopology.streamsProperties(config));
        streams.setUncaughtExceptionHandler(e -> {
            failure.compareAndSet(null, e);
            // a failure the handlers did not absorb is a bug or an unusable cluster: stop, do not spin
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    }

    public void start() {
        streams.start();
    }

    public KafkaStreams streams() {
        return streams;
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /** Waits until every stream thread runs; fails when the application stops or errs first. */
    public void awaitRunning(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (streams.state() != KafkaStreams.State.RUNNING) {
            throwIfFailed();
            if (System.nanoTime() > deadline) {
                throw new AppFailure(ExitCodes.FAILED, "Kafka Streams did not reach RUNNING within " + timeout.toSeconds()
                        + " s (state " + streams.state() + ")");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
            }
        }
    }

    /** Throws when the application failed (an exception escaped a stream thread) or stopped. */
    public void throwIfFailed() {
        Throwable e = failure.get();
        if (e != null) {
            throw new AppFailure(ExitCodes.FAILED, "the topology failed: " + describe(e), e);
        }
        KafkaStreams.State state = streams.state();
        if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.PENDING_ERROR) {
            throw new AppFailure(ExitCodes.FAILED, "Kafka Streams is in state " + state);
        }
    }

    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e) : e + " (caused by " + root + ")";
    }

    /** Baton's counters ({@link BatonMetrics#GROUP}), summed over tasks and tags other than {@code code}. */
    public Map<String, Double> batonCounters() {
        Map<String, Double> sums = new TreeMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (!BatonMetrics.GROUP.equals(name.group())) {
                continue;
            }
            Object value = e.getValue().metricValue();
            if (value instanceof Number n && !Double.isNaN(n.doubleValue())) {
                String key = name.name() + (name.tags().containsKey("code") ? "{" + name.tags().get("code") + "}" : "");
                sums.merge(key, n.doubleValue(), Double::sum);
            }
        }
        return sums;
    }

    /** Closes, leaving the group at once; waits at most {@code timeout}; true when it closed in time. */
    public boolean close(Duration timeout) {
        return streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(timeout));
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
