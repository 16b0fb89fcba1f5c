package dev.baton.bench;

import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.serde.SchemaRegistries;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * CPU per event of the two per-record steps of the stream thread that do not touch Kafka, in this JVM (one thread,
 * {@link ThreadMXBean} CPU time, the best of {@code --repeats} passes of at least 3,000 turns each, after
 * {@code --warmup-seconds} of the same passes):
 * <ul>
 *   <li><b>decode</b>: {@code SessionEventDecoder.avro} (mock registry) of every turn of a generated session, encoded
 *       as the end-to-end harness encodes its input;</li>
 *   <li><b>apply</b>: each turn applied to the session's state and its changed entries stored
 *       ({@code StateStorage.InMemory}), the state kept decoded (a decoded-state cache hit);</li>
 *   <li><b>apply-readback</b>: the same, the state read back from its entries before every turn (a cache miss, what
 *       the harness's 250 sessions per task cause); the read-back itself is timed apart ({@code load}) and left out.</li>
 * </ul>
 * {@code IngestApplyCost [--turns 100,1000] [--size-factor 0.1] [--repeats 5] [--warmup-seconds 10]}. Prints µs per turn. Run it from two
 * trees' classpaths one after the other to compare them (benchmarks/README.md, section "Apply and ingest").
 */
public final class IngestApplyCost {
    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    private IngestApplyCost() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> lengths = List.of(100, 1_000);
        double sizeFactor = 0.1;
        int repeats = 5;
        int warmupSeconds = 10;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--turns" -> {
                    lengths = new ArrayList<>();
                    for (String s : args[i + 1].split(",")) lengths.add(Integer.parseInt(s.trim()));
                }
                case "--size-factor" -> sizeFactor = Double.parseDouble(args[i + 1]);
                case "--repeats" -> repeats = Integer.parseInt(args[i + 1]);
                case "--warmup-seconds" -> warmupSeconds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        Policy policy = Policy.defaults();
        SessionGenerator.Sizes sizes = SessionGenerator.Sizes.REALISTIC.scaled(sizeFactor);
        for (int turns : lengths) {
            List<Turn> session = SessionGenerator.session(turns, 42L, sizes);
            var registry = SchemaRegistries.forUrl("mock://ingest-apply-cost-" + turns);
            SessionEventEncoder encoder = SessionEventEncoder.avro(registry);
            SessionEventDecoder decoder = SessionEventDecoder.avro(registry, 8 * 1024 * 1024);
            byte[] key = "bench/s-1".getBytes(StandardCharsets.UTF_8);
            List<byte[]> values = new ArrayList<>();
            long clock = 1_767_225_600_000L;
            for (Turn t : session) {
                values.add(encoder.encode("in", EventJson.turn("e-" + t.seq(), "bench", "s-1", clock += 10, t)));
            }
            double decode = Double.MAX_VALUE, apply = Double.MAX_VALUE, readback = Double.MAX_VALUE;
            double load = Double.MAX_VALUE;
            long sink = 0;
            int sessions = Math.max(1, 3_000 / turns); // a pass covers at least 3,000 turns
            long warmUntil = System.nanoTime() + warmupSeconds * 1_000_000_000L;
            for (int r = 0; r < repeats || System.nanoTime() < warmUntil; r++) {
                boolean warm = System.nanoTime() >= warmUntil;
                long t0 = MX.getCurrentThreadCpuTime();
                for (int k = 0; k < sessions; k++) {
                    for (byte[] v : values) {
                        Decoded d = decoder.decode(key, v);
                        if (!d.accepted()) throw new IllegalStateException(d.message());
                        sink += d.event().turn().seq();
                    }
                }
                long t1 = MX.getCurrentThreadCpuTime();

                for (int k = 0; k < sessions; k++) {
                    StateStorage.InMemory stored = StateStorage.InMemory.of(SessionState.empty());
                    SessionState live = stored.load();
                    for (Turn t : session) {
                        live.offerTurn(t, policy, 0L);
                        stored.store(live);
                    }
                    sink += live.turnCount();
                }
                long t2 = MX.getCurrentThreadCpuTime();

                long loadNanos = 0;
                for (int k = 0; k < sessions; k++) {
                    StateStorage.InMemory stored = StateStorage.InMemory.of(SessionState.empty());
                    for (Turn t : session) {
                        long l0 = MX.getCurrentThreadCpuTime();
                        SessionState back = stored.load();
                        loadNanos += MX.getCurrentThreadCpuTime() - l0;
                        back.offerTurn(t, policy, 0L);
                        stored.store(back);
                    }
                }
                long t3 = MX.getCurrentThreadCpuTime();
                if (!warm) {
                    r = -1;
                    continue;
                }
                double n = (double) turns * sessions;
                decode = Math.min(decode, (t1 - t0) / 1e3 / n);
                apply = Math.min(apply, (t2 - t1) / 1e3 / n);
                readback = Math.min(readback, (t3 - t2 - loadNanos) / 1e3 / n);
                load = Math.min(load, loadNanos / 1e3 / n);
            }
            System.out.printf(Locale.ROOT, "%,d turns (size factor %.2f): decode %.2f us/turn, apply %.2f us/turn, "
                            + "apply-readback %.2f us/turn (+ load %.1f us/turn, not counted) [%d]%n",
                    turns, sizeFactor, decode, apply, readback, load, sink);
        }
    }
}
