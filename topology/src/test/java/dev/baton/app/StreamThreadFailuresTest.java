package dev.baton.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

import dev.baton.processor.DependencyUnavailableException;
import dev.baton.serde.SchemaRegistryUnavailableException;

class StreamThreadFailuresTest {

    private final List<Duration> waits = new ArrayList<>();
    private final StreamThreadFailures failures = new StreamThreadFailures(Duration.ofMillis(1), Duration.ofMillis(8),
            (e, wait, retry) -> waits.add(wait));

    @Test
    void shouldReplaceTheThreadWhenTheSchemaRegistryCannotBeReached() {
        // as Kafka Streams hands it over: the processor's exception wrapped by the processing exception handler's fail
        Exception e = new StreamsException(new StreamsException("processing failed", new DependencyUnavailableException(
                "schema registry unavailable while decoding t-0@7",
                new SchemaRegistryUnavailableException("not reachable", -1, null))));

        assertThat(failures.handle(e)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(failures.failure()).isNull();
        assertThat(failures.retries()).isEqualTo(1);
        assertThat(waits).containsExactly(Duration.ofMillis(1));
    }

    @Test
    void shouldReplaceTheThreadOnAKafkaRetriableErrorThatEscapedStreamsRetries() {
        assertThat(failures.handle(new StreamsException(new TimeoutException("no leader"))))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    @Test
    void shouldStopTheClientOnAnythingElseAndKeepTheFailure() {
        IllegalStateException bug = new IllegalStateException("a bug");
        StreamsException e = new StreamsException(bug);

        assertThat(failures.handle(e)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(failures.failure()).isSameAs(e);
        assertThat(failures.retries()).isZero();
    }

    @Test
    void shouldDoubleTheBackoffUpToTheMaximumAndStartAgainAfterAQuietPeriod() {
        long ms = 1_000_000L;
        assertThat(List.of(failures.nextWait(1 * ms), failures.nextWait(2 * ms), failures.nextWait(3 * ms),
                failures.nextWait(4 * ms), failures.nextWait(5 * ms)))
                .containsExactly(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(4), Duration.ofMillis(8),
                        Duration.ofMillis(8));
        // more than twice the maximum since the last failure: a new outage
        assertThat(failures.nextWait(5 * ms + 17 * ms)).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void shouldEndTheWaitWhenTheClientCloses() {
        StreamThreadFailures slow = new StreamThreadFailures(Duration.ofMinutes(5), Duration.ofMinutes(5),
                (e, wait, retry) -> { });
        slow.closing();
        long start = System.nanoTime();

        assertThat(slow.handle(new DependencyUnavailableException("down", null)))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMinutes(1));
    }
}
