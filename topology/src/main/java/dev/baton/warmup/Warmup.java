package dev.baton.warmup;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import dev.baton.config.BatonConfig;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.processor.InboundEvent;
import dev.baton.processor.JTokkitTokenizers;
import dev.baton.serde.MockSchemaRegistry;

/**
 * Warms the per-event hot path before an instance takes partitions ({@code baton.warmup.max-ms}): a fresh JVM
 * interprets Baton's decode, apply, store, render, hash and encode code until the JIT has compiled it, and costs
 * about twice as much CPU per event meanwhile (issue 35: p99 of 6.8 s for the first ~30 s of a new instance).
 *
 * <p>It runs a built-in synthetic workload ({@link SyntheticSessions}) through the same classes the session
 * processor uses, with the configured format and default policy: the input decoder, {@code SessionState}'s apply, the
 * stored form ({@link StateStorage.InMemory}: the bytes a state store would get, kept in memory), the render with its
 * print, and the snapshot encoder (content hash, Avro or JSON). Schemas go to a private in-memory registry. It never
 * builds a topology, never opens a Kafka client and never touches a state store or the schema registry, so it can run
 * before {@code KafkaStreams#start}.
 *
 * <p>It stops when the CPU cost per event stopped falling (the median of the last {@value #WINDOW} rounds is within
 * {@value #PLATEAU_PERCENT} % of the median of the {@value #WINDOW} before) while the JIT compilers were nearly idle,
 * or when {@code maxTime} has passed, whichever comes first.
 */
public final class Warmup {
    /** Rounds compared to decide that the cost stopped falling. */
    static final int WINDOW = 5;
    /** How much lower the last window's median may be than the one before and still count as flat. */
    static final int PLATEAU_PERCENT = 5;

    /** What the warm-up did. {@code stop}: {@code off}, {@code converged}, {@code time} or {@code cancelled}. */
    public record Report(int rounds, long events, long snapshots, long elapsedMillis, double firstMicrosPerEvent,
                         double lastMicrosPerEvent, String stop) {
        static Report off() {
            return new Report(0, 0, 0, 0, Double.NaN, Double.NaN, "off");
        }

        /** One log line. */
        public String describe() {
            if (stop.equals("off")) return "Warm-up off (baton.warmup.max-ms=0)";
            String how = switch (stop) {
                case "converged" -> "converged";
                case "cancelled" -> "cancelled (stopping)";
                default -> "stopped at its time limit";
            };
            return String.format(Locale.ROOT, "Warm-up %s after %,d ms: %d rounds, %,d synthetic events, %,d snapshots; "
                            + "CPU per event %.0f µs in the first round, %.0f µs in the last (median of the last %d)",
                    how, elapsedMillis, rounds, events, snapshots, firstMicrosPerEvent, lastMicrosPerEvent, WINDOW);
        }
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final String format;
    private final Policy policy;
    private final Tokenizers tokenizers;
    private final String inputTopic;
    private final String outputTopic;
    private final LongSupplier nanoClock;

    Warmup(String format, Policy policy, Tokenizers tokenizers, String inputTopic, String outputTopic) {
        this(format, policy, tokenizers, inputTopic, outputTopic, System::nanoTime);
    }

    /** @param nanoClock the clock of the time limit (a test's own; else {@code System::nanoTime}) */
    Warmup(String format, Policy policy, Tokenizers tokenizers, String inputTopic, String outputTopic,
           LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.format = format;
        this.policy = policy;
        this.tokenizers = tokenizers;
        this.inputTopic = inputTopic;
        this.outputTopic = outputTopic;
    }

    /** The warm-up for {@code config}: its format, default policy and topic names (the names only: no Kafka). */
    public static Warmup forConfig(BatonConfig config) {
        return new Warmup(config.format().name(), config.defaultPolicy(), JTokkitTokenizers.shared(),
                config.sessionEventsTopic(), config.contextSnapshotsTopic());
    }

    /** Runs for at most {@code maxTime} (zero: not at all), or until converged. */
    public Report run(Duration maxTime) {
        return run(maxTime, () -> false);
    }

    /** {@link #run(Duration)} that also stops (reason {@code time}) as soon as {@code cancelled} says so. */
    public Report run(Duration maxTime, BooleanSupplier cancelled) {
        if (maxTime.isZero() || maxTime.isNegative()) return Report.off();
        long start = nanoClock.getAsLong();
        long deadline = start + maxTime.toNanos();
        String scope = "baton-warmup-" + UUID.randomUUID();
        MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);
        try {
            SessionEventEncoder inputs = SessionEventEncoder.forFormat(format, registry);
            SessionEventDecoder decoder = SessionEventDecoder.forFormat(format, registry, policy.maxRecordBytes());
            SnapshotEncoder encoder = SnapshotEncoder.forFormat(format, registry);
            // three different workloads taken in turn, so that the JIT's profiles are not those of one data set;
            // each made when first needed (making them runs cold too, and must not eat the time of the first rounds)
            List<List<Record>> workloads = new ArrayList<>();
            CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
            List<Double> costs = new ArrayList<>();
            List<Long> jitMillis = new ArrayList<>();
            List<Long> wallNanos = new ArrayList<>();
            long events = 0;
            long snapshots = 0;
            String stop = "time";
            while (nanoClock.getAsLong() < deadline) {
                if (cancelled.getAsBoolean()) {
                    stop = "cancelled";
                    break;
                }
                if (workloads.size() < 3) workloads.add(workload(inputs, workloads.size() + 1));
                List<Record> round = workloads.get(costs.size() % workloads.size());
                long cpu0 = THREADS.getCurrentThreadCpuTime();
                snapshots += replay(round, decoder, encoder);
                long cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
                events += round.size();
                costs.add(cpu / 1e3 / round.size());
                jitMillis.add(jitTimed ? jit.getTotalCompilationTime() : 0L);
                wallNanos.add(nanoClock.getAsLong());
                if (converged(costs, jitMillis, wallNanos)) {
                    stop = "converged";
                    break;
                }
            }
            long elapsed = (nanoClock.getAsLong() - start) / 1_000_000;
            return new Report(costs.size(), events, snapshots, elapsed, costs.isEmpty() ? Double.NaN : costs.get(0),
                    costs.isEmpty() ? Double.NaN : median(costs.subList(Math.max(0, costs.size() - WINDOW),
                            costs.size())), stop);
        } finally {
            MockSchemaRegistry.dropScope(scope);
        }
    }

    /** Two sessions of 60 turns, a hand-off every 8 turns, as the topic holds them (the input format's bytes). */
    private List<Record> workload(SessionEventEncoder inputs, long seed) {
        List<Record> records = new ArrayList<>();
        for (SyntheticSessions.Event e : SyntheticSessions.events(2, 60, 8, seed)) {
            records.add(new Record(e.key(), inputs.encode(inputTopic, e.json())));
        }
        return records;
    }

    /** One input record as the topic holds it. */
    private record Record(byte[] key, byte[] value) {
    }

    /** One session as the processor keeps it: the decoded state (a cache hit), its stored form and render cache. */
    private static final class Session {
        final StateStorage.InMemory stored = StateStorage.InMemory.of(SessionState.empty());
        final SessionState state = stored.load();
        final LayoutCache layouts = new LayoutCache();
    }

    /** Decode → apply → render → encode → store, per event, as the session processor does; the snapshots made. */
    private int replay(List<Record> records, SessionEventDecoder decoder, SnapshotEncoder encoder) {
        Map<String, Session> sessions = new HashMap<>();
        int made = 0;
        long now = System.currentTimeMillis();
        for (Record r : records) {
            Decoded d = decoder.decode(r.key(), r.value());
            if (!d.accepted()) {
                throw new IllegalStateException("the warm-up's own event was rejected: " + d.code() + " " + d.message());
            }
            InboundEvent ev = d.event();
            Session s = sessions.computeIfAbsent(ev.sessionKey(), k -> new Session());
            List<ReadyHandoff> ready = ev.turn() != null ? s.state.offerTurn(ev.turn(), policy, now).released()
                    : s.state.offerHandoff(ev.handoff(), ev.occurredAtMillis(), policy, now).ready();
            for (ReadyHandoff h : ready) {
                ContextEngine.Rendered rendered = ContextEngine.renderWithPrint(ev.tenantId(), ev.sessionId(), s.state,
                        h, policy, tokenizers, s.layouts);
                if (rendered.print() != null) s.state.rememberPrint(h.handoff().toAgent(), rendered.print());
                if (encoder.encode(outputTopic, rendered.snapshot()).length == 0) {
                    throw new IllegalStateException("empty snapshot value");
                }
                made++;
            }
            s.stored.store(s.state);
        }
        return made;
    }

    /**
     * The cost stopped falling (the last window's median is at least {@code 1 - PLATEAU_PERCENT/100} of the window
     * before's) and the JIT spent less than a tenth of the last window's wall time compiling.
     */
    static boolean converged(List<Double> costs, List<Long> jitMillis, List<Long> wallNanos) {
        int n = costs.size();
        if (n < 2 * WINDOW) return false;
        double last = median(costs.subList(n - WINDOW, n));
        double before = median(costs.subList(n - 2 * WINDOW, n - WINDOW));
        if (last < before * (100 - PLATEAU_PERCENT) / 100.0) return false;
        long windowMillis = (wallNanos.get(n - 1) - wallNanos.get(n - WINDOW - 1)) / 1_000_000;
        long compiling = jitMillis.get(n - 1) - jitMillis.get(n - WINDOW - 1);
        return compiling * 10 <= Math.max(1, windowMillis);
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
