package dev.baton.app;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.TransientFailure;

/**
 * What an exception that ends a stream thread leads to ({@link StreamsUncaughtExceptionHandler}).
 *
 * <ul>
 *   <li>A transient failure ({@link DeadLetters#isTransient}: a schema registry that cannot be reached or answers
 *       5xx, a Kafka {@code RetriableException} that Kafka Streams' own retries did not absorb) says nothing about
 *       the data: the thread is replaced after a backoff ({@code REPLACE_THREAD}). Its tasks were closed without a
 *       commit, so the open transaction is aborted and the new thread processes again from the last commit (the
 *       state is restored from the changelogs): nothing is lost, nothing is written twice, nothing is dead-lettered.
 *       The backoff doubles from {@code initial} to {@code max} while the failures go on, and starts again from
 *       {@code initial} once a quiet period of {@code 2 × max} has passed. Processing pauses for the outage; the
 *       process stays up (readiness reports the rebalance), so an orchestrator does not crash-loop it.</li>
 *   <li>Anything else is a bug or an unusable cluster: the client stops ({@code SHUTDOWN_CLIENT}) and the failure is
 *       kept for {@link #failure()}.</li>
 * </ul>
 */
public final class StreamThreadFailures implements StreamsUncaughtExceptionHandler {

    private final Duration initial;
    private final Duration max;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicReference<String> paused = new AtomicReference<>();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final Listener log;
    private long lastFailureNanos;
    private long nextWaitMillis;

    /** Told of each transient failure before its wait (for the log). */
    public interface Listener {
        void transientFailure(Throwable e, Duration wait, long retry);
    }

    public StreamThreadFailures(Duration initial, Duration max, Listener log) {
        if (initial.isNegative() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff " + initial + " to " + max);
        }
        this.initial = initial;
        this.max = max;
        this.log = log;
        this.nextWaitMillis = initial.toMillis();
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        if (!DeadLetters.isTransient(exception)) {
            failure.compareAndSet(null, exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        Duration wait = nextWait(System.nanoTime());
        log.transientFailure(exception, wait, retries.incrementAndGet());
        String reason = rootMessage(exception);
        paused.set(reason);
        try {
            // a close while waiting ends the wait: Kafka Streams does not add a thread to a client that is stopping
            closing.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            paused.compareAndSet(reason, null);
        }
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** The wait before the next replacement: doubling while failures go on, {@code initial} after a quiet period. */
    synchronized Duration nextWait(long nowNanos) {
        if (lastFailureNanos != 0 && nowNanos - lastFailureNanos > 2 * max.toNanos()) {
            nextWaitMillis = initial.toMillis();
        }
        lastFailureNanos = nowNanos;
        long wait = nextWaitMillis;
        nextWaitMillis = Math.min(max.toMillis(), Math.max(1, wait * 2));
        return Duration.ofMillis(wait);
    }

    /**
     * Why a stream thread is paused now (waiting for its replacement after a transient failure: the innermost
     * cause's message, e.g. the schema registry that cannot be reached), or null. For readiness.
     */
    public String pausedReason() {
        return paused.get();
    }

    /** The transient failure's own message (it names the dependency), else the innermost cause's. */
    private static String rootMessage(Throwable e) {
        Throwable root = e;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            root = t;
            if (t instanceof TransientFailure) break;
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    /** The first failure that stopped the client, or null. */
    public Throwable failure() {
        return failure.get();
    }

    /** Stream threads replaced after a transient failure so far. */
    public long retries() {
        return retries.get();
    }

    /** Ends any wait: the client is closing. */
    public void closing() {
        closing.countDown();
    }
}
