package dev.baton.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.config.BatonConfig;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.tokens.Tokenizers;

class WarmupTest {

    @Test
    void shouldDoNothingAtZero() {
        AtomicInteger clockReads = new AtomicInteger();
        Warmup warmup = new Warmup("json", Policy.defaults(), Tokenizers.none(), "in", "out", () -> {
            clockReads.incrementAndGet();
            return 0L;
        });

        Warmup.Report report = warmup.run(Duration.ZERO);

        assertThat(report.stop()).isEqualTo("off");
        assertThat(report.rounds()).isZero();
        assertThat(report.events()).isZero();
        assertThat(clockReads).hasValue(0);
        assertThat(report.describe()).contains("off");
    }

    @Test
    void shouldStopAtItsTimeLimit() {
        // a clock that moves 400 ms per read: the limit of 1 s is reached after a round or two, whatever the machine
        AtomicLong now = new AtomicLong();
        Warmup warmup = new Warmup("json", Policy.defaults(), Tokenizers.none(), "in", "out",
                () -> now.getAndAdd(400_000_000L));

        Warmup.Report report = warmup.run(Duration.ofSeconds(1));

        assertThat(report.stop()).isEqualTo("time");
        assertThat(report.rounds()).isBetween(1, 2);
        assertThat(report.events()).isPositive();
        assertThat(report.snapshots()).as("hand-offs rendered and encoded").isPositive();
        assertThat(report.firstMicrosPerEvent()).isPositive();
    }

    @Test
    void shouldStopWhenCancelled() {
        AtomicInteger asked = new AtomicInteger();
        Warmup warmup = new Warmup("json", Policy.defaults(), Tokenizers.none(), "in", "out");

        Warmup.Report report = warmup.run(Duration.ofMinutes(10), () -> asked.incrementAndGet() > 3);

        assertThat(report.rounds()).isEqualTo(3);
        assertThat(report.stop()).isEqualTo("cancelled");
    }

    @Test
    void shouldConvergeOnlyOnceTheCostStoppedFallingAndTheJitIsQuiet() {
        List<Long> wall = new ArrayList<>();
        for (long i = 0; i < 10; i++) wall.add(i * 100_000_000L); // rounds of 100 ms
        List<Long> quietJit = List.of(0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L);
        List<Long> busyJit = List.of(0L, 0L, 0L, 0L, 0L, 100L, 200L, 300L, 400L, 500L);
        List<Double> flat = List.of(300.0, 290.0, 310.0, 300.0, 305.0, 300.0, 295.0, 302.0, 298.0, 301.0);
        List<Double> falling = List.of(450.0, 440.0, 430.0, 420.0, 410.0, 300.0, 290.0, 280.0, 270.0, 260.0);

        assertThat(Warmup.converged(flat, quietJit, wall)).isTrue();
        assertThat(Warmup.converged(flat, busyJit, wall)).as("the JIT still compiling").isFalse();
        assertThat(Warmup.converged(falling, quietJit, wall)).as("the cost still falling").isFalse();
        assertThat(Warmup.converged(flat.subList(0, 9), quietJit.subList(0, 9), wall.subList(0, 9)))
                .as("fewer than two windows").isFalse();
    }

    /**
     * With Kafka and the schema registry unreachable (nothing listens on port 9), the warm-up of an Avro instance
     * still runs its whole workload: it asks neither. Its state directory stays empty: it opens no store.
     */
    @Test
    void shouldTouchNoKafkaNoRegistryAndNoStateStore(@TempDir Path stateDir) throws IOException {
        BatonConfig config = BatonConfig.builder().environment(Map.of(
                "BATON_FORMAT", "avro",
                "BATON_SCHEMA_REGISTRY_URL", "http://127.0.0.1:9",
                "BATON_BOOTSTRAP_SERVERS", "127.0.0.1:9",
                "BATON_STATE_DIR", stateDir.toString())).build();
        AtomicInteger rounds = new AtomicInteger();

        Warmup.Report report = Warmup.forConfig(config).run(Duration.ofMinutes(10), () -> rounds.getAndIncrement() >= 2);

        assertThat(report.rounds()).isEqualTo(2);
        assertThat(report.snapshots()).isPositive();
        try (Stream<Path> files = Files.list(stateDir)) {
            assertThat(files).isEmpty();
        }
    }
}
