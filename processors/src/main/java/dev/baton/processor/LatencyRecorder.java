package dev.baton.processor;

import java.util.Map;

/**
 * Where the processors report how long a hand-off took, for the latency histograms on {@code /metrics} (module
 * {@code service} implements it with Micrometer timers; docs/operations.md says what each one measures and with which
 * clocks). It reaches the processors through the Kafka Streams configuration (key {@value #CONFIG}, an object value,
 * read from {@code context.appConfigs()}), so that the topology's processors need no extra wiring; without it nothing
 * is recorded. Called on the stream threads: implementations must be thread-safe and cheap.
 */
public interface LatencyRecorder {
    /** The Streams configuration key whose (object) value is the recorder. */
    String CONFIG = "baton.latency.recorder";

    /** Records nothing. */
    LatencyRecorder NONE = new LatencyRecorder() {
        @Override
        public void handoffToSnapshot(String tenantId, long millis) {
        }

        @Override
        public void render(String tenantId, long nanos) {
        }

        @Override
        public void receiptToOutcome(String tenantId, long millis) {
        }
    };

    /**
     * From the hand-off record's timestamp (the producer's clock, or the broker's with {@code LogAppendTime}) to the
     * snapshot handed to the producer (this instance's wall clock); never negative.
     */
    void handoffToSnapshot(String tenantId, long millis);

    /** One hand-off's rendering (every render of it, when it is rendered again to fit the output limit). */
    void render(String tenantId, long nanos);

    /** From the receipt record's timestamp to its outcome handed to the producer (this instance's wall clock). */
    void receiptToOutcome(String tenantId, long millis);

    /** The recorder in the application's configuration, or {@link #NONE}. */
    static LatencyRecorder from(Map<String, Object> appConfigs) {
        return appConfigs.get(CONFIG) instanceof LatencyRecorder r ? r : NONE;
    }
}
