package dev.baton.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.config.BatonConfig;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.replay.embedded.EmbeddedKafka;

/**
 * Issue 35: hand-off → snapshot latency, per second from the start, while a {@code baton run} instance starts into a
 * running load ({@code --scenario join}: instance A serves from the start, instance B joins at {@code --event-at}) or
 * one of two instances is killed with SIGKILL ({@code --scenario kill}: B killed at {@code --event-at}). Every part is
 * its own process, as in production: the broker in this JVM, the load ({@code FailoverLatency load}: 2,000 events/s,
 * JSON, 100 sessions, a hand-off every 25 turns of a session, the hand-off id carrying its send time), each instance
 * ({@code ServiceCommand run}, fresh JVM, its own state directory), and the reader (here: read_committed, joins each
 * snapshot to its hand-off by id). Instances get {@code --warmup-ms} (baton.warmup.max-ms) and {@code --jvm-opts}
 * (e.g. {@code -Xshare:off}, or {@code -XX:SharedArchiveFile=...}).
 */
public final class FailoverLatency {
    private static final ObjectMapper JSON = new ObjectMapper();

    private FailoverLatency() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("load")) {
            load(args[1], args[2], Integer.parseInt(args[3]));
            return;
        }
        String scenario = "join";
        int seconds = 60;
        int eventAt = 25;
        int rate = 2_000;
        int partitions = 8;
        String warmupMs = "5000";
        String jvmOpts = "";
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--scenario" -> scenario = args[i + 1];
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--event-at" -> eventAt = Integer.parseInt(args[i + 1]);
                case "--rate" -> rate = Integer.parseInt(args[i + 1]);
                case "--partitions" -> partitions = Integer.parseInt(args[i + 1]);
                case "--warmup-ms" -> warmupMs = args[i + 1];
                case "--jvm-opts" -> jvmOpts = args[i + 1];
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        System.out.printf(Locale.ROOT, "failover-latency: scenario %s, %d s, event at %d s, %d events/s, %d partitions, "
                + "warmup-ms %s, jvm-opts '%s'%n", scenario, seconds, eventAt, rate, partitions, warmupMs, jvmOpts);
        String cp = System.getProperty("java.class.path");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path work = Files.createTempDirectory("failover-latency");
        List<Process> processes = new ArrayList<>();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(Map.of("message.max.bytes", Integer.toString(8 * 1024 * 1024)))) {
            BatonConfig defaults = BatonConfig.builder().environment(Map.of("BATON_FORMAT", "json")).build();
            kafka.createTopics(partitions, defaults.sessionEventsTopic(), defaults.contextSnapshotsTopic(),
                    defaults.deadLettersTopic());
            kafka.createTopics(1, Map.of("cleanup.policy", "compact"), defaults.tenantPoliciesTopic().orElseThrow());
            String bootstrap = kafka.bootstrapServers();

            ConcurrentLinkedQueue<long[]> samples = new ConcurrentLinkedQueue<>(); // {receivedAt, latency} in ms
            Thread reader = new Thread(() -> read(bootstrap, defaults.contextSnapshotsTopic(), samples), "reader");
            reader.setDaemon(true);
            reader.start();

            long t0 = System.currentTimeMillis();
            processes.add(start(List.of(java, "-cp", cp, FailoverLatency.class.getName(), "load", bootstrap,
                    defaults.sessionEventsTopic(), Integer.toString(rate)), work.resolve("load.log"), Map.of()));
            Process a = instance(java, cp, jvmOpts, bootstrap, work, "a", warmupMs);
            processes.add(a);
            Process b = null;
            if (scenario.equals("kill")) {
                b = instance(java, cp, jvmOpts, bootstrap, work, "b", warmupMs);
                processes.add(b);
            }
            sleepUntil(t0 + eventAt * 1000L);
            long event = System.currentTimeMillis();
            if (scenario.equals("kill")) {
                b.destroyForcibly(); // SIGKILL
                System.out.printf(Locale.ROOT, "t=%.1f s: instance b killed (SIGKILL)%n", (event - t0) / 1e3);
            } else {
                processes.add(instance(java, cp, jvmOpts, bootstrap, work, "b", warmupMs));
                System.out.printf(Locale.ROOT, "t=%.1f s: instance b started%n", (event - t0) / 1e3);
            }
            sleepUntil(t0 + seconds * 1000L);
            report(new ArrayList<>(samples), t0, event, seconds);
        } finally {
            for (Process p : processes) p.destroyForcibly();
            System.out.println("logs: " + work);
        }
    }

    private static Process instance(String java, String cp, String jvmOpts, String bootstrap, Path work, String name,
                                    String warmupMs) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx1g"));
        if (!jvmOpts.isBlank()) cmd.addAll(List.of(jvmOpts.trim().split("\\s+")));
        cmd.addAll(List.of("-cp", cp, "dev.baton.service.command.ServiceCommand", "run", "--bootstrap-servers",
                bootstrap, "--format", "json", "--http-port", "0"));
        return start(cmd, work.resolve(name + ".log"), Map.of(
                "BATON_STATE_DIR", work.resolve("state-" + name).toString(),
                "BATON_WARMUP_MAX_MS", warmupMs,
                "BATON_REPLICATION_FACTOR", "1", // one broker
                "BATON_CLIENT_ID", "baton-" + name,
                "BATON_APPLICATION_SERVER", "127.0.0.1:1" + (name.equals("a") ? "0001" : "0002")));
    }

    private static Process start(List<String> cmd, Path log, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return pb.start();
    }

    /** The load process: 100 sessions, a hand-off after every 25 turns of a session, paced at {@code rate}/s. */
    static void load(String bootstrap, String topic, int rate) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(8 * 1024 * 1024));
        int sessions = 100;
        List<SessionGenerator.Stream> streams = new ArrayList<>();
        long[] turns = new long[sessions];
        for (int s = 0; s < sessions; s++) {
            streams.add(SessionGenerator.stream(s + 1, SessionGenerator.Sizes.REALISTIC.scaled(0.1)));
        }
        long sent = 0;
        long start = System.nanoTime();
        long clock = System.currentTimeMillis();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(),
                new ByteArraySerializer())) {
            while (true) {
                int s = (int) (sent % sessions);
                String session = "s-" + s;
                String key = "bench/" + session;
                byte[] value;
                if (turns[s] > 0 && turns[s] % 25 == 0) {
                    long now = System.currentTimeMillis();
                    String id = "h-" + now + "-" + sent;
                    value = EventJson.handoff("e-" + sent, "bench", session, now,
                            new Handoff(id, "qwen", "reviewer", Target.LOCAL, "Please take over.", null, null));
                    turns[s]++; // the next event of this session is a turn again
                } else {
                    Turn t = streams.get(s).next();
                    value = EventJson.turn("e-" + sent, "bench", session, clock++, t);
                    turns[s]++;
                }
                producer.send(new ProducerRecord<>(topic, key, value));
                sent++;
                long due = start + sent * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
        }
    }

    private static void read(String bootstrap, String topic, ConcurrentLinkedQueue<long[]> samples) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "failover-latency-reader");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 * 1024 * 1024));
        Map<String, Boolean> seen = new ConcurrentHashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (true) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.currentTimeMillis();
                    try {
                        JsonNode n = JSON.readTree(new String(r.value(), StandardCharsets.UTF_8));
                        String id = n.path("handoff_id").asText("");
                        if (!id.startsWith("h-") || seen.putIfAbsent(id, true) != null) continue;
                        long sentAt = Long.parseLong(id.split("-")[1]);
                        samples.add(new long[] {now, now - sentAt});
                    } catch (Exception e) {
                        // not a snapshot of this run's load
                    }
                }
            }
        } catch (org.apache.kafka.common.errors.InterruptException e) {
            // stopped
        }
    }

    private static void report(List<long[]> samples, long t0, long event, int seconds) {
        System.out.println(" second | snapshots | p50 ms | p99 ms | max ms");
        for (int s = 0; s < seconds; s++) {
            List<Long> l = new ArrayList<>();
            for (long[] x : samples) if ((x[0] - t0) / 1000 == s) l.add(x[1]);
            Collections.sort(l);
            String mark = (event - t0) / 1000 == s ? "  <- event" : "";
            System.out.printf(Locale.ROOT, " %6d | %9d | %6s | %6s | %6s%s%n", s, l.size(), pct(l, 0.50),
                    pct(l, 0.99), l.isEmpty() ? "-" : Long.toString(l.get(l.size() - 1)), mark);
        }
        System.out.printf(Locale.ROOT, "SUMMARY p99 in the 10 s after the event: %s ms; p99 in the last 10 s: %s ms; "
                        + "p99 in 10–20 s after the event: %s ms%n",
                pct(window(samples, event, event + 10_000), 0.99), pct(window(samples, t0 + (seconds - 10) * 1000L,
                        t0 + seconds * 1000L), 0.99), pct(window(samples, event + 10_000, event + 20_000), 0.99));
    }

    private static List<Long> window(List<long[]> samples, long from, long to) {
        List<Long> l = new ArrayList<>();
        for (long[] x : samples) if (x[0] >= from && x[0] < to) l.add(x[1]);
        Collections.sort(l);
        return l;
    }

    private static String pct(List<Long> sorted, double q) {
        if (sorted.isEmpty()) return "-";
        return Long.toString(sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1)));
    }

    private static void sleepUntil(long millis) throws InterruptedException {
        long wait = millis - System.currentTimeMillis();
        if (wait > 0) Thread.sleep(wait);
    }
}
