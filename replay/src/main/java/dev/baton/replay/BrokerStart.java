package dev.baton.replay;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.replay.embedded.EmbeddedKafka;

/**
 * The replay's in-process broker, starting on a thread of its own from the moment the command knows it needs one:
 * most of a broker's start is one thread loading and initialising classes, so the command's other start-up work
 * (reading the configuration, counting the input's lines, loading the topology's classes) runs beside it on the
 * second core instead of after it. Closing it closes the broker unless {@link #await} handed it over.
 */
final class BrokerStart implements AutoCloseable {

    private final CompletableFuture<EmbeddedKafka> broker;
    private boolean handedOver;

    private BrokerStart(CompletableFuture<EmbeddedKafka> broker) {
        this.broker = broker;
    }

    /** Starts the replay's broker now, on a new thread. */
    static BrokerStart begin() {
        CompletableFuture<EmbeddedKafka> future = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            try {
                future.complete(EmbeddedKafka.start(brokerConfig()));
            } catch (Throwable e) {
                future.completeExceptionally(e);
            }
        }, "replay-broker-start");
        starter.setDaemon(true);
        starter.start();
        return new BrokerStart(future);
    }

    /** The settings of a replay's broker beside {@link EmbeddedKafka}'s defaults. */
    static Map<String, String> brokerConfig() {
        return Map.of(
            "message.max.bytes", Integer.toString(Replay.MAX_MESSAGE_BYTES),
            "replica.fetch.max.bytes", Integer.toString(Replay.MAX_MESSAGE_BYTES),
            // records the replay deleted (consumed input, read output) leave the disk within seconds
            "log.retention.check.interval.ms", "5000",
            "log.segment.delete.delay.ms", "1000");
    }

    /** Waits until the broker accepts clients and hands it over: the caller closes it from now on. */
    EmbeddedKafka await() {
        try {
            EmbeddedKafka started = broker.get();
            handedOver = true;
            return started;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(cause.getMessage(), cause);
        }
    }

    /** Unless it was handed over: waits for the start to end and closes the broker (a failed start left nothing). */
    @Override
    public void close() {
        if (handedOver) {
            return;
        }
        handedOver = true;
        try {
            broker.join().close();
        } catch (RuntimeException failedToStart) {
            // EmbeddedKafka cleaned up after itself
        }
    }
}
