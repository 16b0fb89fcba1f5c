package dev.baton.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.replay.embedded.EmbeddedKafka;

/**
 * Issue 33, item 5: hand-off → snapshot latency of {@code baton run} measured two ways, on a real broker, with the
 * load from a separate process.
 *
 * <p>Three JVMs: this driver (the in-process broker, {@link EmbeddedKafka}, and the reader); {@code baton run}
 * ({@code ServiceCommand run}, JSON format, the deploy defaults: exactly-once v2, 100 ms commits) in a process of its
 * own; and the load ({@link Load}) in another, paced at each rate of {@code --rates} for {@code --warmup} +
 * {@code --seconds}: turns of {@code --sessions} sessions round robin, and after every {@code --handoff-every} events
 * of a session a LOCAL hand-off that is ready on arrival (no {@code as_of_seq} to wait for). Its records carry the
 * producer's CreateTime (one machine: one clock).
 *
 * <p>Per rate, over the measured window only:
 * <ul>
 *   <li>the histogram: {@code baton_handoff_snapshot_latency_seconds_bucket} scraped from {@code /metrics} before and
 *       after, p50/p99 of the difference interpolated within buckets as {@code histogram_quantile} does (record
 *       timestamp → snapshot handed to the producer);</li>
 *   <li>the consumer side: a separate reader ({@code read_committed}) reads the events topic (hand-off ids and their
 *       record timestamps) and the snapshots topic, joins them by hand-off id, and takes its wall clock at receipt
 *       minus the hand-off record's timestamp: what a receiver waits, commit and transaction included; exact
 *       percentiles.</li>
 * </ul>
 * plus the achieved input rate, the hand-offs answered within the drain, and the load average ({@code /proc/loadavg})
 * at the start and end of the window.
 *
 * <p>Flags: {@code --rates} (2000,4000,8000), {@code --seconds} (45), {@code --warmup} (15), {@code --sessions}
 * (1000), {@code --handoff-every} (20), {@code --partitions} (4), {@code --text-chars} (400), {@code --xmx} (1g),
 * {@code --set key=value} (repeatable: a setting of the instance, as {@code BATON_*} environment).
 */
public final class HandoffLatencyHarness {
    static final String TENANT = "bench";
    static final String EVENTS = "baton.session-events";
    static final String SNAPSHOTS = "baton.context-snapshots";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HISTOGRAM = "baton_handoff_snapshot_latency_seconds_bucket";
    private static final String RENDER = "baton_handoff_render_seconds_bucket";

    private HandoffLatencyHarness() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> rates = List.of(2000, 4000, 8000);
        int seconds = 45, warmup = 15, sessions = 1000, handoffEvery = 20, partitions = 4, textChars = 400;
        String xmx = "1g";
        Map<String, String> settings = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rates" -> rates = java.util.Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--sessions" -> sessions = Integer.parseInt(args[++i]);
                case "--handoff-every" -> handoffEvery = Integer.parseInt(args[++i]);
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--text-chars" -> textChars = Integer.parseInt(args[++i]);
                case "--xmx" -> xmx = args[++i];
                case "--set" -> SettingFlag.put(settings, args[++i]);
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        Path dir = Files.createTempDirectory("baton-latency");
        System.out.printf("hand-off latency: rates %s events/s, %d s measured after %d s warm-up, %d sessions, a "
                        + "hand-off every %d events of a session, %d partitions, texts of %d chars, settings %s%n",
                rates, seconds, warmup, sessions, handoffEvery, partitions, textChars, settings);
        System.out.println("load average at start: " + loadAverage());
        List<String> rows = new ArrayList<>();
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopics(partitions, EVENTS);
            kafka.createTopics(partitions, Map.of("max.message.bytes", "8388608"), SNAPSHOTS, "baton.dead-letters");
            kafka.createTopics(1, Map.of("cleanup.policy", "compact"), "baton.tenant-policies");
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Process baton = startBaton(kafka.bootstrapServers(), port, dir, xmx, settings);
            Reader reader = new Reader(kafka.bootstrapServers());
            Thread readerThread = new Thread(reader, "latency-reader");
            readerThread.setDaemon(true);
            try {
                awaitReady(port, baton, dir.resolve("baton.log"));
                readerThread.start();
                int offset = 0;
                // a warm-up run at a low rate (JIT, RocksDB, the first transactions), not reported
                phase(kafka.bootstrapServers(), port, reader, 500, 0, 20, sessions, handoffEvery, textChars,
                        offset, xmx);
                offset += sessions;
                for (int rate : rates) {
                    rows.add(phase(kafka.bootstrapServers(), port, reader, rate, warmup, seconds, sessions,
                            handoffEvery, textChars, offset, xmx));
                    offset += sessions; // fresh sessions for every rate: the same session sizes at each rate
                }
            } finally {
                reader.stop.set(true);
                baton.destroy();
                if (!baton.waitFor(60, TimeUnit.SECONDS)) baton.destroyForcibly();
            }
        }
        System.out.println();
        System.out.println("| input rate (target → achieved, events/s) | hand-offs | answered | histogram p50 / p99 (ms) "
                + "| consumer side p50 / p99 / max (ms) | render p50 / p99 (ms) | commit latency avg (ms) "
                + "| load average (start → end) |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
        System.out.println("load average at end: " + loadAverage());
        EmbeddedKafka.deleteRecursively(dir);
    }

    private static String phase(String bootstrap, int port, Reader reader, int rate, int warmup, int seconds,
                                int sessions, int handoffEvery, int textChars, int sessionOffset, String xmx)
            throws Exception {
        System.out.printf("%n== %d events/s ==%n", rate);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process load = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                Load.class.getName(), bootstrap, Integer.toString(rate), Integer.toString(warmup + seconds),
                Integer.toString(sessions), Integer.toString(handoffEvery), Integer.toString(textChars),
                Integer.toString(sessionOffset)).redirectErrorStream(true).start();
        List<String> loadOut = new ArrayList<>();
        Thread out = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(load.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    synchronized (loadOut) {
                        loadOut.add(l);
                    }
                    System.out.println("  [load] " + l);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        out.setDaemon(true);
        out.start();
        Thread.sleep(warmup * 1000L);
        String loadStart = loadAverage();
        long from = System.currentTimeMillis();
        Map<Double, Double> before = histogram(port, HISTOGRAM);
        Map<Double, Double> renderBefore = histogram(port, RENDER);
        Thread.sleep(seconds * 1000L);
        long to = System.currentTimeMillis();
        String loadEnd = loadAverage();
        if (!load.waitFor(120, TimeUnit.SECONDS)) load.destroyForcibly();
        out.join(5_000);
        // the drain: hand-offs sent in the window get up to 10 s to be answered
        long handoffs = reader.handoffsBetween(from, to);
        long deadline = System.currentTimeMillis() + 10_000;
        while (reader.answeredBetween(from, to) < handoffs && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        Map<Double, Double> after = histogram(port, HISTOGRAM);
        Map<Double, Double> renderAfter = histogram(port, RENDER);
        String commit = gauge(port, "kafka_stream_thread_commit_latency_avg");
        Map<Double, Double> renderDelta = new TreeMap<>();
        renderAfter.forEach((le, c) -> renderDelta.put(le, c - renderBefore.getOrDefault(le, 0.0)));
        List<Long> consumer = reader.latenciesBetween(from, to);
        Map<Double, Double> delta = new TreeMap<>();
        after.forEach((le, c) -> delta.put(le, c - before.getOrDefault(le, 0.0)));
        String achieved;
        synchronized (loadOut) {
            achieved = loadOut.stream().filter(l -> l.startsWith("achieved ")).map(l -> l.substring(9)).findFirst()
                    .orElse("?");
        }
        return String.format(Locale.ROOT, "| %d → %s | %d | %d | %.0f / %.0f | %s | %.1f / %.1f | %s | %s → %s |",
                rate, achieved, handoffs, consumer.size(), 1000 * quantile(delta, 0.5), 1000 * quantile(delta, 0.99),
                percentiles(consumer), 1000 * quantile(renderDelta, 0.5), 1000 * quantile(renderDelta, 0.99), commit,
                loadStart, loadEnd);
    }

    private static Process startBaton(String bootstrap, int port, Path dir, String xmx, Map<String, String> settings)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx" + xmx, "-XX:+ExitOnOutOfMemoryError",
                "-Dlog4j2.shutdownHookEnabled=false", "-cp", System.getProperty("java.class.path"),
                "dev.baton.service.command.ServiceCommand", "run", "--bootstrap-servers", bootstrap, "--format", "json",
                "--http-port", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(dir.resolve("baton.log").toFile());
        Map<String, String> env = pb.environment();
        env.put("BATON_STATE_DIR", dir.resolve("state").toString());
        env.put("BATON_REPLICATION_FACTOR", "1");
        env.put("BATON_NUM_STANDBY_REPLICAS", "0");
        env.put("BATON_APPLICATION_ID", "baton-latency");
        env.put("BATON_APPLICATION_SERVER", "localhost:" + port);
        env.put("BATON_CLIENT_ID", "baton-latency");
        env.put("BATON_METRICS_TENANTS", TENANT);
        env.put("MALLOC_ARENA_MAX", "2");
        settings.forEach((k, v) -> env.put("BATON_" + k.replaceFirst("^baton\\.", "").replaceAll("[.-]", "_")
                .toUpperCase(Locale.ROOT), v));
        return pb.start();
    }

    private static void awaitReady(int port, Process baton, Path log) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!baton.isAlive()) throw new IllegalStateException("baton run exited:\n" + Files.readString(log));
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("baton run not ready within 120 s:\n" + Files.readString(log));
    }

    private static String scrape(int port) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The mean over the stream threads of a Kafka Streams gauge, as text (NaN: none yet). */
    static String gauge(int port, String name) throws Exception {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*} ([0-9.eE+-]+|NaN)").matcher(scrape(port));
        double sum = 0;
        int n = 0;
        while (m.find()) {
            double v = Double.parseDouble(m.group(1));
            if (!Double.isNaN(v)) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? "–" : String.format(Locale.ROOT, "%.0f", sum / n);
    }

    /** The cumulative buckets of the tenant's histogram {@code name}: upper edge (s) → count. */
    static Map<Double, Double> histogram(int port, String name) throws Exception {
        String scrape = scrape(port);
        Pattern p = Pattern.compile("(?m)^" + name + "\\{tenant=\"" + TENANT + "\",le=\"([^\"]+)\"} ([0-9.eE+]+)");
        Map<Double, Double> buckets = new TreeMap<>();
        Matcher m = p.matcher(scrape);
        while (m.find()) {
            double le = m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1));
            buckets.put(le, Double.parseDouble(m.group(2)));
        }
        return buckets;
    }

    /** As Prometheus' histogram_quantile: linear within the bucket; the highest finite edge past the last one. */
    static double quantile(Map<Double, Double> cumulative, double q) {
        double total = cumulative.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
        if (total <= 0) return Double.NaN;
        double rank = q * total, lower = 0, below = 0;
        for (Map.Entry<Double, Double> b : cumulative.entrySet()) {
            if (b.getValue() >= rank) {
                if (b.getKey().isInfinite()) return lower;
                double inBucket = b.getValue() - below;
                return lower + (b.getKey() - lower) * (inBucket == 0 ? 1 : (rank - below) / inBucket);
            }
            lower = b.getKey();
            below = b.getValue();
        }
        return lower;
    }

    private static String percentiles(List<Long> values) {
        if (values.isEmpty()) return "– / – / –";
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(index(sorted.size(), 0.5)) + " / " + sorted.get(index(sorted.size(), 0.99)) + " / "
                + sorted.get(sorted.size() - 1);
    }

    private static int index(int n, double q) {
        return Math.min(n - 1, (int) Math.ceil(q * n) - 1);
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    /**
     * The consumer side: hand-off record timestamps from the events topic, snapshots (read_committed) from the
     * snapshots topic, joined by hand-off id.
     */
    static final class Reader implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        private final String bootstrap;
        /** hand-off id → its record's timestamp. */
        private final Map<String, Long> sent = new ConcurrentHashMap<>();
        /** hand-off id → receipt wall clock of its snapshot. */
        private final Map<String, Long> answered = new ConcurrentHashMap<>();

        Reader(String bootstrap) {
            this.bootstrap = bootstrap;
        }

        @Override
        public void run() {
            Map<String, Object> props = new HashMap<>();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, "latency-reader");
            props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
            props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10); // a receiver polls eagerly: little added wait
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                    new ByteArrayDeserializer())) {
                c.subscribe(List.of(EVENTS, SNAPSHOTS));
                while (!stop.get()) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                        long now = System.currentTimeMillis();
                        try {
                            if (r.topic().equals(SNAPSHOTS)) {
                                answered.putIfAbsent(JSON.readTree(r.value()).get("handoff_id").asText(), now);
                            } else if (indexOf(r.value(), "\"handoff\"") >= 0) {
                                JsonNode e = JSON.readTree(r.value());
                                sent.put(e.get("handoff").get("handoff_id").asText(), r.timestamp());
                            }
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }
            }
        }

        private static int indexOf(byte[] value, String needle) {
            return new String(value, StandardCharsets.UTF_8).indexOf(needle);
        }

        long handoffsBetween(long from, long to) {
            return sent.values().stream().filter(t -> t >= from && t < to).count();
        }

        long answeredBetween(long from, long to) {
            return latenciesBetween(from, to).size();
        }

        List<Long> latenciesBetween(long from, long to) {
            List<Long> out = new ArrayList<>();
            sent.forEach((id, t) -> {
                Long at = answered.get(id);
                if (at != null && t >= from && t < to) out.add(at - t);
            });
            return out;
        }
    }

    /**
     * The load, a process of its own: {@code bootstrap rate seconds sessions handoffEvery textChars sessionOffset}.
     * Paced in 10 ms slots; prints {@code achieved N} (events/s) at the end.
     */
    public static final class Load {
        public static void main(String[] args) throws Exception {
            String bootstrap = args[0];
            int rate = Integer.parseInt(args[1]), seconds = Integer.parseInt(args[2]);
            int sessions = Integer.parseInt(args[3]), handoffEvery = Integer.parseInt(args[4]);
            int textChars = Integer.parseInt(args[5]), offset = Integer.parseInt(args[6]);
            Map<String, Object> props = new HashMap<>();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            String text = "Looked at the failing build; the test fixture leaks a temp dir. ".repeat(textChars / 64 + 1)
                    .substring(0, textChars);
            long[] seq = new long[sessions];
            long[] handoffs = new long[sessions];
            long sentCount = 0;
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                int next = 0;
                while (System.nanoTime() < end) {
                    long due = (System.nanoTime() - start) * rate / 1_000_000_000L; // events due by now
                    while (sentCount < due) {
                        int s = next;
                        next = (next + 1) % sessions;
                        String session = "s" + (offset + s);
                        String key = TENANT + "/" + session;
                        long now = System.currentTimeMillis();
                        String event;
                        String id = "e" + (offset + s) + "-" + sentCount;
                        if (seq[s] > 0 && seq[s] % handoffEvery == 0 && handoffs[s] < seq[s] / handoffEvery) {
                            handoffs[s]++;
                            event = "{\"event_id\":\"" + id + "\",\"tenant_id\":\"" + TENANT + "\",\"session_id\":\""
                                    + session + "\",\"occurred_at\":\"" + java.time.Instant.ofEpochMilli(now)
                                    + "\",\"handoff\":{\"handoff_id\":\"" + session + "-h" + handoffs[s]
                                    + "\",\"from_agent\":\"planner\",\"to_agent\":\"coder\",\"target\":\"LOCAL\"}}";
                        } else {
                            String role = seq[s] == 0 ? "USER" : "ASSISTANT";
                            event = "{\"event_id\":\"" + id + "\",\"tenant_id\":\"" + TENANT + "\",\"session_id\":\""
                                    + session + "\",\"occurred_at\":\"" + java.time.Instant.ofEpochMilli(now)
                                    + "\",\"turn\":{\"seq\":" + seq[s] + ",\"agent\":\"planner\",\"role\":\"" + role
                                    + "\",\"text\":\"" + text + "\"}}";
                            seq[s]++;
                        }
                        // no timestamp given: the producer stamps the record when it is sent (CreateTime)
                        producer.send(new ProducerRecord<>(EVENTS, key.getBytes(StandardCharsets.UTF_8),
                                event.getBytes(StandardCharsets.UTF_8)));
                        sentCount++;
                    }
                    Thread.sleep(10);
                }
                producer.flush();
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            System.out.printf(Locale.ROOT, "achieved %.0f%n", sentCount / elapsed);
        }
    }
}
