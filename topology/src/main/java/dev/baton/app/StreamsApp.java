package dev.baton.app;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.baton.config.BatonConfig;
import dev.baton.processor.HandoffTracing;
import dev.baton.processor.LatencyRecorder;
import dev.baton.processor.TaskSensors;
import dev.baton.topology.BatonTopology;

/**
 * Baton's topology running in this JVM: {@link KafkaStreams} with the configuration's properties,
 * a failure recorded instead of lost in a stream thread (a transient one — an unreachable schema registry —
 * retried on a new thread after a backoff, see {@link StreamThreadFailures}), and a close that leaves the consumer group
 * at once (so a restarted or replacing instance gets the partitions without waiting for a timeout).
 */
public final class StreamsApp implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamsApp.class);
    /** First and longest wait before a stream thread that failed on a transient error is replaced. */
    static final Duration RETRY_BACKOFF_INITIAL = Duration.ofSeconds(1);
    static final Duration RETRY_BACKOFF_MAX = Duration.ofSeconds(8);

    private final KafkaStreams streams;
    private final StreamThreadFailures failures;

    public StreamsApp(BatonConfig config) {
        this(config, HandoffTracing.OFF, LatencyRecorder.NONE);
    }

    /**
     * @param tracing hand-off spans ({@code baton run} with {@code OTEL_*} configured); backfill and demo: OFF
     * @param latency where the processors report the hand-off latencies (the service's histograms)
     */
    public StreamsApp(BatonConfig config, HandoffTracing tracing, LatencyRecorder latency) {
        Topology topology = BatonTopology.buildTopology(config, tracing);
        Properties props = BatonTopology.streamsProperties(config);
        // an object value: the processors read it from context.appConfigs()
        props.put(LatencyRecorder.CONFIG, latency);
        streams = new KafkaStreams(topology, props);
        // a transient failure (an unreachable schema registry) pauses processing and retries it from the last
        // commit on a new stream thread; anything else is a bug or an unusable cluster: stop, do not spin
        failures = new StreamThreadFailures(RETRY_BACKOFF_INITIAL, RETRY_BACKOFF_MAX, (e, wait, retry) ->
                LOG.warn("A dependency is unavailable ({}); the stream thread's uncommitted work is aborted and "
                        + "retried from the last commit on a new stream thread in {} ms (retry {})", describe(e),
                        wait.toMillis(), retry));
        streams.setUncaughtExceptionHandler(failures);
    }

    /** Stream threads replaced after a transient failure (an unreachable schema registry) so far. */
    public long transientRetries() {
        return failures.retries();
    }

    /** Why processing is paused now (a stream thread waits to be replaced after a transient failure), or null. */
    public String pausedReason() {
        return failures.pausedReason();
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
        Throwable e = failures.failure();
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

    /** Baton's counters ({@link TaskSensors#GROUP}), summed over tasks and tags other than {@code code}. */
    public Map<String, Double> batonCounters() {
        Map<String, Double> sums = new TreeMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (!TaskSensors.GROUP.equals(name.group())) {
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
        failures.closing();
        return streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(timeout));
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
