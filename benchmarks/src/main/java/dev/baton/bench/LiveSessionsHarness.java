package dev.baton.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.baton.config.BatonConfig;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.processor.TaskSensors;
import dev.baton.replay.embedded.EmbeddedKafka;
import dev.baton.topology.BatonTopology;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Many live sessions in one Baton instance, in bounded memory (the capacity figures of docs/capacity.md).
 *
 * <p>The driver (this JVM) runs the in-process broker ({@link EmbeddedKafka}) and the producer; the instance runs in a
 * JVM of its own ({@link Instance}: {@link BatonTopology}, nothing else), started with the heap a production pod gives
 * it ({@code --xmx}, default 1228m = {@code -XX:MaxRAMPercentage=40} of the 3 GiB limit in {@code deploy/}) and the
 * settings of {@code deploy/base/configmap.yaml}'s {@code baton.properties} (two stream threads, exactly-once v2,
 * 100 ms commits, the decoded-state cache and RocksDB bounds), so that its heap and resident memory are Baton's alone.
 *
 * <p>The input: {@code --sessions} sessions of {@code --turns} turns each ({@link SessionGenerator}, realistic sizes
 * scaled by {@code --size-factor}), {@code --active} sessions interleaved at a time, a LOCAL hand-off after the last
 * turn of every {@code --handoff-every}-th session (a snapshot rendered from the stored state). No session is closed:
 * every one stays live (the idle TTL is days). Then {@code --revisit} more turns, each followed by a hand-off, into
 * sessions spread over the whole key space (old sessions read back from RocksDB, not from the decoded cache).
 *
 * <p>Every {@code --sample-seconds} it prints one row: input committed, records/s in the interval, the instance's heap
 * after its latest GC, committed heap, the decoded-state caches' weight and sessions (Baton's gauges), RocksDB's block
 * cache usage (shared: the figure of one store), memtables and table readers (summed over stores; Kafka Streams'
 * RocksDB property metrics), the process's RSS ({@code /proc/PID/status} VmRSS), and the state directory's size. At
 * the end of each phase it asks the instance for a full GC and prints the live heap, then a summary with per-session
 * figures.
 *
 * <p>Flags: {@code --sessions} (100000), {@code --turns} (3), {@code --size-factor} (0.1), {@code --handoff-every}
 * (10), {@code --active} (2000), {@code --revisit} (5000), {@code --partitions} (8 = 24 partitions over the 3 pods of
 * the production overlay), {@code --xmx} (1228m), {@code --sample-seconds} (15), {@code --timeout-seconds} (3600),
 * {@code --set key=value} (repeatable: a setting of the instance, over the deploy defaults).
 */
public final class LiveSessionsHarness {
    private static final String TENANT = "live";
    private static final long GIB = 1L << 30;

    /** The settings of deploy/base/configmap.yaml's baton.properties (what a production pod runs with). */
    static final Map<String, String> DEPLOY_SETTINGS = Map.of(
            StreamsConfig.PROCESSING_GUARANTEE_CONFIG, "exactly_once_v2",
            StreamsConfig.NUM_STREAM_THREADS_CONFIG, "2",
            StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100",
            "producer.max.request.size", "8388608");

    record Flags(int sessions, int turns, double sizeFactor, int handoffEvery, int active, int revisit, int partitions,
                 String xmx, int sampleSeconds, int timeoutSeconds, Map<String, String> settings) {
        static Flags parse(String[] args) {
            int sessions = 100_000, turns = 3, handoffEvery = 10, active = 2_000, revisit = 5_000, partitions = 8;
            int sample = 15, timeout = 3_600;
            double factor = 0.1;
            String xmx = "1228m";
            Map<String, String> settings = new TreeMap<>();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--sessions" -> sessions = Integer.parseInt(args[++i]);
                    case "--turns" -> turns = Integer.parseInt(args[++i]);
                    case "--size-factor" -> factor = Double.parseDouble(args[++i]);
                    case "--handoff-every" -> handoffEvery = Integer.parseInt(args[++i]);
                    case "--active" -> active = Integer.parseInt(args[++i]);
                    case "--revisit" -> revisit = Integer.parseInt(args[++i]);
                    case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                    case "--xmx" -> xmx = args[++i];
                    case "--sample-seconds" -> sample = Integer.parseInt(args[++i]);
                    case "--timeout-seconds" -> timeout = Integer.parseInt(args[++i]);
                    case "--set" -> SettingFlag.put(settings, args[++i]);
                    default -> throw new IllegalArgumentException("unknown flag " + args[i]);
                }
            }
            return new Flags(sessions, turns, factor, handoffEvery, active, revisit, partitions, xmx, sample, timeout,
                    settings);
        }
    }

    private LiveSessionsHarness() {
    }

    public static void main(String[] args) throws Exception {
        Flags flags = Flags.parse(args);
        String run = Long.toString(System.currentTimeMillis(), 36);
        System.out.printf(Locale.ROOT, "live sessions: %s%n", flags);
        long started = System.nanoTime();
        Path stateDir = Files.createTempDirectory("live-sessions-state-");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(Map.of("message.max.bytes", Integer.toString(8 << 20)))) {
            Map<String, String> settings = new TreeMap<>(DEPLOY_SETTINGS);
            settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            settings.put(StreamsConfig.APPLICATION_ID_CONFIG, "live-" + run);
            settings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            settings.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
            // one instance: a standby has nowhere to go (production: one per active task on another pod)
            settings.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "0");
            settings.put(BatonConfig.FORMAT, "json");
            settings.putAll(flags.settings());
            BatonConfig config = BatonConfig.of(settings);
            kafka.createTopics(flags.partitions(), config.sessionEventsTopic(), config.contextSnapshotsTopic(),
                    config.deadLettersTopic());
            kafka.createTopics(1, Map.of("cleanup.policy", "compact"), config.tenantPoliciesTopic().orElseThrow());
            System.out.printf(Locale.ROOT, "instance settings: baton.state.cache.max.bytes=%d, baton.rocksdb.total.bytes"
                            + "=%d, baton.rocksdb.write-buffer.bytes=%d, statestore.cache.max.bytes=%s, threads=%s, "
                            + "-Xmx%s, %d partitions%n", config.stateCacheMaxBytes(), config.rocksDbTotalBytes(),
                    config.rocksDbWriteBufferBytes(), config.toStreamsProperties().getProperty(
                            StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "(default 10485760)"),
                    settings.get(StreamsConfig.NUM_STREAM_THREADS_CONFIG), flags.xmx(), flags.partitions());

            Path props = Files.createTempFile("live-sessions-", ".properties");
            props.toFile().deleteOnExit();
            Properties p = new Properties();
            p.putAll(settings);
            try (var out = Files.newBufferedWriter(props)) {
                p.store(out, "LiveSessionsHarness instance");
            }
            try (InstanceProcess instance = InstanceProcess.start(flags, props);
                 Admin admin = kafka.admin()) {
                Producer producer = Producer.start(kafka, config.sessionEventsTopic(), flags);
                Sampler sampler = new Sampler(admin, config.sessionEventsTopic(), "live-" + run, flags, instance,
                        stateDir);
                sampler.header();
                // phase 1: every session created, a few turns each
                long phase1 = sampler.until(() -> producer.phase1Done, producer.phase1Records, flags);
                Map<String, Double> live1 = instance.fullGc();
                Row end1 = sampler.sample(true);
                sampler.print(end1, "after phase 1, full GC");
                producer.startRevisits();
                long phase2 = sampler.until(() -> producer.done, producer.records, flags);
                Map<String, Double> live2 = instance.fullGc();
                Row end2 = sampler.sample(true);
                sampler.print(end2, "after revisits, full GC");
                check(producer.error.get() == null, "producer failed: " + producer.error.get());
                summary(flags, producer, end1, live1, end2, live2, phase1 + phase2,
                        (System.nanoTime() - started) / 1e9, sampler);
            }
        } finally {
            EmbeddedKafka.deleteRecursively(stateDir);
        }
    }

    private static void summary(Flags flags, Producer producer, Row end1, Map<String, Double> live1, Row end2,
                                Map<String, Double> live2, long records, double seconds, Sampler sampler) {
        System.out.println();
        System.out.printf(Locale.ROOT, "== %,d live sessions in one instance (%d partitions, -Xmx%s), %,d records, "
                        + "%.1f MB of input, %,d hand-offs ==%n", flags.sessions(), flags.partitions(), flags.xmx(),
                producer.records.get(), producer.bytes.get() / 1e6, producer.handoffs.get());
        System.out.printf(Locale.ROOT, "  live heap after full GC: %.0f MiB (phase 1), %.0f MiB (after revisits)%n",
                mib(live1.get("heapUsed")), mib(live2.get("heapUsed")));
        System.out.printf(Locale.ROOT, "  decoded-state caches: %.0f MiB weight, %,.0f sessions (bound %.0f MiB over "
                        + "%d tasks)%n", mib(end2.cacheBytes()), end2.cacheSessions(),
                mib(sampler.cacheBound()), flags.partitions());
        System.out.printf(Locale.ROOT, "  RocksDB: block cache %.0f MiB (capacity %.0f MiB, pinned %.0f MiB), "
                        + "memtables %.0f MiB, table readers %.1f MiB%n", mib(end2.blockCache()),
                mib(end2.blockCacheCapacity()), mib(end2.pinned()), mib(end2.memtables()), mib(end2.tableReaders()));
        System.out.printf(Locale.ROOT, "  process: RSS %.0f MiB, peak RSS %.0f MiB; the JVM's own committed memory "
                        + "(NMT) %.0f MiB of which heap %.0f MiB: RSS outside the JVM's accounting (RocksDB, allocator) "
                        + "%.0f MiB%n", mib(end2.rss()), mib(end2.peakRss()), mib(live2.get("nmtCommitted")),
                mib(live2.get("nmtHeapCommitted")), mib(end2.rss() - live2.get("nmtCommitted")));
        System.out.printf(Locale.ROOT, "  longest GC pause %.0f ms; rebalances %.0f (instance state changes above)%n",
                live2.get("maxGcPauseMs"), live2.get("rebalances"));
        System.out.printf(Locale.ROOT, "  state directory %.0f MiB = %,.0f bytes per live session (skeleton store "
                        + "estimate: %,.0f sessions)%n", mib(end2.stateBytes()),
                end2.stateBytes() / (double) flags.sessions(), end2.sessionsEstimate());
        System.out.printf(Locale.ROOT, "  records/s overall %.0f; whole run %.0f s%n",
                records / Math.max(1e-9, end2.elapsed()), seconds);
    }

    private static double mib(double bytes) {
        return bytes / (1 << 20);
    }

    private static String key(int session) {
        return SessionKey.of(TENANT, sessionId(session)).toString();
    }

    private static String sessionId(int session) {
        return String.format(Locale.ROOT, "s-%07d", session);
    }

    /** The input, in a thread of its own: phase 1 (every session), then the revisits when told. */
    static final class Producer {
        final AtomicLong records = new AtomicLong();
        final AtomicLong phase1Records = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong handoffs = new AtomicLong();
        final java.util.concurrent.atomic.AtomicReference<Throwable> error =
                new java.util.concurrent.atomic.AtomicReference<>();
        volatile boolean phase1Done;
        volatile boolean done;
        private final java.util.concurrent.CountDownLatch revisits = new java.util.concurrent.CountDownLatch(1);

        static Producer start(EmbeddedKafka kafka, String topic, Flags flags) {
            Producer p = new Producer();
            Thread t = new Thread(() -> {
                try {
                    p.run(kafka, topic, flags);
                } catch (Throwable e) {
                    p.error.set(e);
                    p.phase1Done = true;
                    p.done = true;
                }
            }, "live-producer");
            t.setDaemon(true);
            t.start();
            return p;
        }

        void startRevisits() {
            revisits.countDown();
        }

        private void run(EmbeddedKafka kafka, String topic, Flags flags) throws Exception {
            SessionGenerator.Sizes sizes = SessionGenerator.Sizes.REALISTIC.scaled(flags.sizeFactor());
            long clock = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
            props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
            props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
                for (int first = 0; first < flags.sessions(); first += flags.active()) {
                    int last = Math.min(flags.sessions(), first + flags.active());
                    List<SessionGenerator.Stream> streams = new ArrayList<>(last - first);
                    for (int s = first; s < last; s++) streams.add(SessionGenerator.stream(1_000L + s, sizes));
                    for (int turn = 0; turn < flags.turns(); turn++) {
                        for (int s = first; s < last; s++) {
                            Turn t = streams.get(s - first).next();
                            send(producer, topic, s, EventJson.turn("e-" + s + "-t" + t.seq(), TENANT, sessionId(s),
                                    clock += 10, t));
                        }
                    }
                    for (int s = first; s < last; s++) {
                        if (s % flags.handoffEvery() == 0) clock = handoff(producer, topic, s, "h-1", clock);
                    }
                }
                producer.flush();
                phase1Records.set(records.get());
                phase1Done = true;
                revisits.await();
                // revisits: sessions spread over the key space, one more turn each, then a hand-off
                for (int i = 0; i < flags.revisit(); i++) {
                    int s = (int) ((i * 7_919L) % flags.sessions());
                    Turn next = SessionGenerator.stream(5_000_000L + i, sizes).next();
                    // the session's next seq (its turns were 0..turns-1): applied at once, no gap
                    Turn t = new Turn(flags.turns(), next.agent(), next.role(), next.text(), next.trail(),
                            next.toolCalls(), next.toolCallId(), next.provider(), next.model());
                    send(producer, topic, s, EventJson.turn("e-" + s + "-r" + i, TENANT, sessionId(s),
                            clock += 10, t));
                    clock = handoff(producer, topic, s, "h-r" + i, clock);
                }
                producer.flush();
                done = true;
            }
        }

        private long handoff(KafkaProducer<String, byte[]> producer, String topic, int s, String id, long clock) {
            Handoff h = new Handoff(id, null, "reviewer", Target.LOCAL, "Take over from here.", null, null);
            send(producer, topic, s, EventJson.handoff("e-" + s + "-" + id, TENANT, sessionId(s), clock += 10, h));
            handoffs.incrementAndGet();
            return clock;
        }

        private void send(KafkaProducer<String, byte[]> producer, String topic, int s, byte[] value) {
            producer.send(new ProducerRecord<>(topic, key(s), value), (m, e) -> {
                if (e != null) error.compareAndSet(null, e);
            });
            records.incrementAndGet();
            bytes.addAndGet(value.length);
        }
    }

    /** One printed row. */
    record Row(double elapsed, long committed, double recordsPerSecond, double heapAfterGc, double heapCommitted,
               double cacheBytes, double cacheSessions, double blockCache, double blockCacheCapacity, double pinned,
               double memtables, double tableReaders, double sessionsEstimate, long rss, long peakRss,
               long stateBytes) {
    }

    /** Samples the instance and the broker's committed offsets. */
    static final class Sampler {
        private final Admin admin;
        private final String topic;
        private final String group;
        private final Flags flags;
        private final InstanceProcess instance;
        private final Path stateDir;
        private final long start = System.nanoTime();
        private long lastCommitted;
        private long lastAt = System.nanoTime();
        private double cacheBound;

        Sampler(Admin admin, String topic, String group, Flags flags, InstanceProcess instance, Path stateDir) {
            this.admin = admin;
            this.topic = topic;
            this.group = group;
            this.flags = flags;
            this.instance = instance;
            this.stateDir = stateDir;
        }

        double cacheBound() {
            return cacheBound;
        }

        void header() {
            System.out.printf(Locale.ROOT, "%7s %11s %8s %9s %9s %9s %9s %9s %9s %9s %8s %9s %9s%n", "seconds",
                    "committed", "rec/s", "heap-gc", "heap-com", "dcache", "dc-sess", "rdb-cache", "memtable",
                    "readers", "sessions", "RSS", "state");
            System.out.printf(Locale.ROOT, "%7s %11s %8s %9s %9s %9s %9s %9s %9s %9s %8s %9s %9s%n", "", "records",
                    "", "MiB", "MiB", "MiB", "", "MiB", "MiB", "MiB", "", "MiB", "MiB");
        }

        /** Samples every --sample-seconds until {@code done} and the instance has committed {@code records}. */
        long until(java.util.function.BooleanSupplier done, AtomicLong records, Flags flags) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(flags.timeoutSeconds());
            long nextSample = System.nanoTime() + TimeUnit.SECONDS.toNanos(flags.sampleSeconds());
            while (true) {
                check(instance.alive(), "the instance exited: " + instance.exitCode());
                check(System.nanoTime() < deadline, "not done within " + flags.timeoutSeconds() + " s");
                long committed = committed();
                if (done.getAsBoolean() && committed >= records.get()) return committed;
                if (System.nanoTime() >= nextSample) {
                    print(sample(false), "");
                    nextSample = System.nanoTime() + TimeUnit.SECONDS.toNanos(flags.sampleSeconds());
                }
                Thread.sleep(500);
            }
        }

        Row sample(boolean fresh) throws Exception {
            Map<String, Double> m = instance.sample(fresh);
            long committed = committed();
            long now = System.nanoTime();
            double rate = (committed - lastCommitted) / ((now - lastAt) / 1e9);
            lastCommitted = committed;
            lastAt = now;
            cacheBound = m.getOrDefault("cacheBound", 0.0);
            long[] rss = instance.rss();
            return new Row((now - start) / 1e9, committed, rate, m.get("heapAfterGc"), m.get("heapCommitted"),
                    m.get("cacheBytes"), m.get("cacheSessions"), m.get("blockCache"), m.get("blockCacheCapacity"),
                    m.get("pinned"), m.get("memtables"), m.get("tableReaders"), m.get("sessions"), rss[0], rss[1],
                    directorySize(stateDir));
        }

        void print(Row r, String note) {
            System.out.printf(Locale.ROOT, "%7.0f %,11d %,8.0f %9.0f %9.0f %9.1f %,9.0f %9.1f %9.1f %9.1f %,8.0f %9.0f "
                            + "%9.0f %s%n", r.elapsed(), r.committed(), r.recordsPerSecond(), mib(r.heapAfterGc()),
                    mib(r.heapCommitted()), mib(r.cacheBytes()), r.cacheSessions(), mib(r.blockCache()),
                    mib(r.memtables()), mib(r.tableReaders()), r.sessionsEstimate(), mib(r.rss()),
                    mib(r.stateBytes()), note);
        }

        private long committed() throws Exception {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (int p = 0; p < flags.partitions(); p++) request.put(new TopicPartition(topic, p), OffsetSpec.latest());
            Set<TopicPartition> parts = request.keySet();
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            long sum = 0;
            for (TopicPartition tp : parts) {
                OffsetAndMetadata o = offsets.get(tp);
                if (o != null) sum += o.offset();
            }
            return sum;
        }
    }

    static long directorySize(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0; // deleted meanwhile (compaction)
                }
            }).sum();
        } catch (IOException | java.io.UncheckedIOException e) {
            return -1;
        }
    }

    /** The instance's JVM, seen from the driver: commands on its stdin, samples on its stdout. */
    static final class InstanceProcess implements AutoCloseable {
        private final Process process;
        private final OutputStream commands;
        private final BlockingQueue<Map<String, Double>> samples = new LinkedBlockingQueue<>();

        private InstanceProcess(Process process) {
            this.process = process;
            this.commands = process.getOutputStream();
            Thread reader = new Thread(() -> read(process.getInputStream()), "live-instance-out");
            reader.setDaemon(true);
            reader.start();
        }

        static InstanceProcess start(Flags flags, Path props) throws IOException {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + flags.xmx(),
                    "-XX:+ExitOnOutOfMemoryError", "-XX:NativeMemoryTracking=summary", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-cp", System.getProperty("java.class.path"), Instance.class.getName(), props.toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            // as deploy/base/statefulset.yaml: fewer glibc malloc arenas next to RocksDB
            pb.environment().put("MALLOC_ARENA_MAX", "2");
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            return new InstanceProcess(pb.start());
        }

        private void read(java.io.InputStream in) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("SAMPLE ")) {
                        Map<String, Double> m = new LinkedHashMap<>();
                        for (String kv : line.substring(7).trim().split(" ")) {
                            int eq = kv.indexOf('=');
                            m.put(kv.substring(0, eq), Double.parseDouble(kv.substring(eq + 1)));
                        }
                        samples.add(m);
                    } else {
                        System.out.println("  [instance] " + line);
                    }
                }
            } catch (IOException e) {
                // the instance exited
            }
        }

        boolean alive() {
            return process.isAlive();
        }

        int exitCode() {
            return process.isAlive() ? -1 : process.exitValue();
        }

        Map<String, Double> sample(boolean fresh) throws Exception {
            return command("sample");
        }

        /** A full GC in the instance, then its heap figures. */
        Map<String, Double> fullGc() throws Exception {
            return command("gc");
        }

        private synchronized Map<String, Double> command(String c) throws Exception {
            samples.clear();
            commands.write((c + "\n").getBytes(StandardCharsets.UTF_8));
            commands.flush();
            Map<String, Double> m = samples.poll(120, TimeUnit.SECONDS);
            check(m != null, "no answer from the instance to " + c);
            return m;
        }

        /** VmRSS and VmHWM of the instance, bytes. */
        long[] rss() {
            long[] out = {-1, -1};
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                    if (line.startsWith("VmRSS:")) out[0] = kib(line);
                    if (line.startsWith("VmHWM:")) out[1] = kib(line);
                }
            } catch (IOException e) {
                // not Linux, or the process is gone
            }
            return out;
        }

        private static long kib(String line) {
            return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                try {
                    commands.write("stop\n".getBytes(StandardCharsets.UTF_8));
                    commands.flush();
                } catch (IOException e) {
                    // gone already
                }
                try {
                    if (!process.waitFor(90, TimeUnit.SECONDS)) process.destroyForcibly();
                } catch (InterruptedException e) {
                    process.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * The Baton instance: {@link BatonTopology} with the settings of the properties file given, and a loop answering
     * the driver's commands on stdin ({@code sample}, {@code gc}, {@code stop}) with one {@code SAMPLE k=v ...} line.
     */
    public static final class Instance {
        private static final AtomicLong HEAP_AFTER_GC = new AtomicLong(-1);
        private static final AtomicLong MAX_PAUSE_MS = new AtomicLong();
        private static final AtomicLong REBALANCES = new AtomicLong();

        private Instance() {
        }

        public static void main(String[] args) throws Exception {
            Properties file = new Properties();
            try (Reader r = Files.newBufferedReader(Path.of(args[0]))) {
                file.load(r);
            }
            Map<String, String> settings = new TreeMap<>();
            file.stringPropertyNames().forEach(k -> settings.put(k, file.getProperty(k)));
            BatonConfig config = BatonConfig.of(settings);
            listenToGc();
            KafkaStreams streams = new KafkaStreams(BatonTopology.buildTopology(config),
                    BatonTopology.streamsProperties(config));
            streams.setUncaughtExceptionHandler(e -> {
                e.printStackTrace();
                return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                        .SHUTDOWN_CLIENT;
            });
            long t0 = System.nanoTime();
            streams.setStateListener((now, before) -> {
                if (now == KafkaStreams.State.REBALANCING) REBALANCES.incrementAndGet();
                System.out.printf(Locale.ROOT, "%.0f s: %s -> %s%n", (System.nanoTime() - t0) / 1e9, before, now);
            });
            streams.start();
            long cacheBound = config.stateCacheMaxBytes();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    line = line.trim();
                    if (line.equals("stop")) break;
                    if (line.equals("gc")) {
                        System.gc();
                        Thread.sleep(500);
                    }
                    System.out.println("SAMPLE " + sample(streams, cacheBound, line.equals("gc")));
                    System.out.flush();
                }
            }
            streams.close(Duration.ofSeconds(60));
            System.exit(0);
        }

        private static void listenToGc() {
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (!(gc instanceof NotificationEmitter emitter)) continue;
                emitter.addNotificationListener((n, handback) -> {
                    if (!n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) return;
                    GarbageCollectionNotificationInfo info =
                            GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                    long after = 0;
                    Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                            .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName)
                            .collect(Collectors.toSet());
                    for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                        if (heapPools.contains(e.getKey())) after += e.getValue().getUsed();
                    }
                    HEAP_AFTER_GC.set(after);
                    MAX_PAUSE_MS.accumulateAndGet(info.getGcInfo().getDuration(), Math::max);
                }, null, null);
            }
        }

        private static String sample(KafkaStreams streams, long cacheBound, boolean afterFullGc) {
            MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
            double cacheBytes = 0, cacheSessions = 0, blockCache = 0, capacity = 0, pinned = 0, memtables = 0;
            double readers = 0, sessions = 0;
            int tasks = 0;
            for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
                MetricName n = e.getKey();
                if (!(e.getValue().metricValue() instanceof Number num) || Double.isNaN(num.doubleValue())) continue;
                double v = num.doubleValue();
                if (n.group().equals(TaskSensors.GROUP)) {
                    if (n.name().equals("decoded-state-cache-bytes")) {
                        cacheBytes += v;
                        tasks++;
                    }
                    if (n.name().equals("decoded-state-cache-sessions")) cacheSessions += v;
                } else if (n.group().equals("stream-state-metrics")) {
                    switch (n.name()) {
                        // one cache shared by every store: each store reports the whole cache
                        case "block-cache-usage" -> blockCache = Math.max(blockCache, v);
                        case "block-cache-capacity" -> capacity = Math.max(capacity, v);
                        case "block-cache-pinned-usage" -> pinned = Math.max(pinned, v);
                        case "cur-size-all-mem-tables" -> memtables += v;
                        case "estimate-table-readers-mem" -> readers += v;
                        case "estimate-num-keys" -> {
                            if ("baton-session-state".equals(n.tags().get("rocksdb-state-id"))) sessions += v;
                        }
                        default -> { }
                    }
                }
            }
            long used = heap.getUsed();
            long[] nmt = nativeMemory();
            long afterGc = afterFullGc ? used : HEAP_AFTER_GC.get();
            return String.format(Locale.ROOT, "heapUsed=%d heapAfterGc=%d heapCommitted=%d cacheBytes=%.0f "
                            + "cacheSessions=%.0f cacheBound=%d blockCache=%.0f blockCacheCapacity=%.0f pinned=%.0f "
                            + "memtables=%.0f tableReaders=%.0f sessions=%.0f tasks=%d maxGcPauseMs=%d rebalances=%d "
                            + "nmtCommitted=%d nmtHeapCommitted=%d", used, afterGc,
                    heap.getCommitted(), cacheBytes, cacheSessions, cacheBound * tasks, blockCache, capacity, pinned,
                    memtables, readers, sessions, tasks, MAX_PAUSE_MS.get(), REBALANCES.get(), nmt[0], nmt[1]);
        }

        /**
         * With {@code -XX:NativeMemoryTracking=summary}: the JVM's own committed memory (all of it, and the heap's),
         * from the {@code VM.native_memory} diagnostic command; else -1.
         */
        private static long[] nativeMemory() {
            long[] out = {-1, -1};
            try {
                Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                        new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                        new Object[]{new String[]{"summary", "scale=KB"}}, new String[]{String[].class.getName()});
                java.util.regex.Matcher total = java.util.regex.Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB")
                        .matcher(text.toString());
                if (total.find()) out[0] = Long.parseLong(total.group(1)) * 1024;
                java.util.regex.Matcher heap = java.util.regex.Pattern.compile(
                        "Java Heap \\(reserved=\\d+KB, committed=(\\d+)KB").matcher(text.toString());
                if (heap.find()) out[1] = Long.parseLong(heap.group(1)) * 1024;
            } catch (Exception | Error e) {
                // NMT off, or no diagnostic command bean
            }
            return out;
        }
    }

    static void check(boolean ok, String message) {
        if (!ok) throw new IllegalStateException(message);
    }
}
