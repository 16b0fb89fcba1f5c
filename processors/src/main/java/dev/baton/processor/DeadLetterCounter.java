package dev.baton.processor;

import dev.baton.deadletter.ErrorCode;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.TaskId;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place where dead letters are counted ({@code dead-letters-total} per code), whoever produces them: the
 * topology's dead-letter writer (rejected input, late turns, failures the processors catch) and Kafka Streams'
 * exception handlers, whose dead letters go to the producer directly (KIP-1034) and never pass the writer.
 *
 * <p>The handlers have no access to Kafka Streams' metrics registry, so one counter is shared through the Streams
 * configuration: {@code BatonTopology.streamsProperties} puts it under {@link #CONFIG}; a handler finds it in the
 * map its {@code configure} receives, a processor in {@code context.appConfigs()}. Each task's dead-letter writer
 * registers the task's metrics when it starts ({@link #register}); a handler's dead letter is counted in the metrics of
 * the task that read the record, or of any task of this instance when the task registered none (the global thread).
 * One counter serves one {@code KafkaStreams}: build the properties once per instance.
 */
public final class DeadLetterCounter {
    /** The key of the shared counter in the Streams configuration (not a setting: an object, never printed). */
    public static final String CONFIG = "baton.internal.dead-letter-counter";

    private final Map<String, TaskSensors> tasks = new ConcurrentHashMap<>();

    /** The counter shared through {@code configs}, or a private one when the configuration carries none. */
    public static DeadLetterCounter from(Map<String, ?> configs) {
        return configs.get(CONFIG) instanceof DeadLetterCounter shared ? shared : new DeadLetterCounter();
    }

    /** Starts counting the dead letters of {@code taskId} in {@code metrics} (Kafka Streams' registry). */
    public synchronized Task register(StreamsMetrics metrics, TaskId taskId) {
        String id = taskId.toString();
        TaskSensors counted = new TaskSensors(metrics, id, "dead-letters");
        TaskSensors previous = tasks.put(id, counted);
        if (previous != null) previous.close();
        return new Task(id, counted);
    }

    /** Counts one dead letter produced for a record of {@code taskId} ({@code null}: the global thread's). */
    public void count(TaskId taskId, ErrorCode code) {
        TaskSensors metrics = taskId == null ? null : tasks.get(taskId.toString());
        if (metrics == null) metrics = tasks.values().stream().findFirst().orElse(null);
        // nothing registered yet: no task of this instance has started, so no record can have been dead-lettered
        if (metrics != null) metrics.deadLetter(code);
    }

    /** One task's registration: counts its dead letters, and removes its metrics when the task closes. */
    public final class Task implements AutoCloseable {
        private final String id;
        private final TaskSensors metrics;

        private Task(String id, TaskSensors metrics) {
            this.id = id;
            this.metrics = metrics;
        }

        public void count(ErrorCode code) {
            metrics.deadLetter(code);
        }

        @Override
        public void close() {
            synchronized (DeadLetterCounter.this) {
                // a newer registration of the same task (moved to another thread) keeps its metrics
                tasks.remove(id, metrics);
                metrics.close();
            }
        }
    }
}
