package dev.baton.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.replay.BackfillOptions;
import dev.baton.replay.BackfillRunner;
import dev.baton.replay.Jsonl;
import dev.baton.replay.embedded.EmbeddedKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code baton backfill} against a pass-through replay of the same JSONL file through the same in-process broker, in
 * one run (the target: backfill ≥ 0.6× the pass-through, records/s).
 *
 * <ol>
 *   <li>Writes the input (or takes {@code --input FILE}): {@code --sessions} sessions of {@code --turns} turns
 *       ({@link SessionGenerator}, sizes scaled by {@code --size-factor}), {@code --active} sessions interleaved at a
 *       time, a hand-off after every {@code --handoff-every} turns of a session. {@code --write-only} stops there
 *       (to make a big file for a memory run of {@code ./baton backfill}).</li>
 *   <li>Pass-through: the file read line by line as backfill reads it (same reader, same key peek), produced with the
 *       replay's producer settings to a topic, copied by a Kafka Streams source→sink application with the backfill's
 *       Streams settings (at-least-once, 500 ms commits), read back and written to a file. Timed from topic creation
 *       to the last output line written.</li>
 *   <li>Backfill: {@link BackfillRunner} on the same broker ({@code --bootstrap-servers}: private topics, the same
 *       code path as in-process otherwise). Timed from start to the output file renamed into place.</li>
 *   <li>Prints records/s and MB/s for both, the ratio, and the broker's peak disk use during each.</li>
 * </ol>
 */
public final class BackfillHarness {
    private static final String TENANT = "bench";
    private static final int MAX_BYTES = 16 * 1024 * 1024;

    record Flags(int sessions, int turns, int active, double sizeFactor, int handoffEvery, Path input, Path write,
                 boolean skipPassThrough, Map<String, String> settings, Path keepOutput) {
        static Flags parse(String[] args) {
            int sessions = 400, turns = 40, active = 40, handoffEvery = 10;
            double factor = 0.3;
            Path input = null, write = null, keep = null;
            boolean skip = false;
            Map<String, String> settings = new TreeMap<>();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--sessions" -> sessions = Integer.parseInt(args[++i]);
                    case "--turns" -> turns = Integer.parseInt(args[++i]);
                    case "--active" -> active = Integer.parseInt(args[++i]);
                    case "--size-factor" -> factor = Double.parseDouble(args[++i]);
                    case "--handoff-every" -> handoffEvery = Integer.parseInt(args[++i]);
                    case "--input" -> input = Path.of(args[++i]);
                    case "--write-only" -> write = Path.of(args[++i]);
                    case "--skip-passthrough" -> skip = true;
                    case "--keep-output" -> keep = Path.of(args[++i]);
                    case "--set" -> SettingFlag.put(settings, args[++i]);
                    default -> throw new IllegalArgumentException("unknown flag " + args[i]);
                }
            }
            return new Flags(sessions, turns, active, factor, handoffEvery, input, write, skip, settings, keep);
        }
    }

    record Outcome(String name, long records, long bytes, double seconds, long outputs, long diskPeak) {
        double recordsPerSecond() {
            return records / seconds;
        }
    }

    private BackfillHarness() {
    }

    public static void main(String[] args) throws Exception {
        Flags flags = Flags.parse(args);
        System.out.printf(Locale.ROOT, "backfill harness: %s%n", flags);
        if (flags.write() != null) {
            long[] written = write(flags, flags.write());
            System.out.printf(Locale.ROOT, "wrote %s: %,d records (%,d hand-offs), %,.1f MB%n", flags.write(),
                written[0], written[1], written[2] / 1e6);
            return;
        }
        Path dir = Files.createTempDirectory("bench-backfill-");
        try {
            Path input = flags.input();
            long handoffs = -1;
            if (input == null) {
                input = dir.resolve("input.jsonl");
                long[] written = write(flags, input);
                handoffs = written[1];
                System.out.printf(Locale.ROOT, "input: %,d records (%,d hand-offs), %,.1f MB%n", written[0],
                    written[1], written[2] / 1e6);
            }
            long records = Jsonl.countRecords(input);
            long bytes = Files.size(input);
            try (EmbeddedKafka kafka = EmbeddedKafka.start(Map.of(
                "message.max.bytes", Integer.toString(MAX_BYTES),
                "replica.fetch.max.bytes", Integer.toString(MAX_BYTES),
                "log.retention.check.interval.ms", "5000"))) {
                Outcome pass = flags.skipPassThrough() ? null
                    : passThrough(kafka, input, dir, records, bytes, flags.settings());
                if (pass != null) {
                    System.out.printf(Locale.ROOT, "pass-through: %.1f s, %,d outputs%n", pass.seconds(),
                        pass.outputs());
                }
                Outcome back = backfill(kafka, input, dir, records, bytes, flags.settings());
                report(pass, back);
                Path output = dir.resolve("snapshots.jsonl");
                long distinct = distinctSnapshotIds(output);
                System.out.printf(Locale.ROOT, "hand-offs in the input: %s; snapshots written: %,d; distinct "
                    + "snapshot ids: %,d%n", handoffs < 0 ? "(not counted: --input)" : String.format(Locale.ROOT,
                    "%,d", handoffs), back.outputs(), distinct);
                if (flags.keepOutput() != null) {
                    Files.copy(output, flags.keepOutput(), StandardCopyOption.REPLACE_EXISTING);
                    System.out.println("backfill output kept as " + flags.keepOutput());
                }
            }
        } finally {
            EmbeddedKafka.deleteRecursively(dir);
        }
    }

    /** Writes the generated sessions as JSONL; returns {records, hand-offs, bytes}. */
    static long[] write(Flags flags, Path file) throws IOException {
        SessionGenerator.Sizes sizes = SessionGenerator.Sizes.REALISTIC.scaled(flags.sizeFactor());
        long records = 0, handoffs = 0;
        long clock = 1_767_225_600_000L;
        try (Jsonl.Writer out = Jsonl.writer(file)) {
            for (int first = 0; first < flags.sessions(); first += flags.active()) {
                int last = Math.min(flags.sessions(), first + flags.active());
                List<SessionGenerator.Stream> streams = new ArrayList<>();
                for (int s = first; s < last; s++) {
                    streams.add(SessionGenerator.stream(1_000L + s, sizes));
                }
                for (int t = 0; t < flags.turns(); t++) {
                    for (int s = first; s < last; s++) {
                        Turn turn = streams.get(s - first).next();
                        String session = String.format(Locale.ROOT, "s-%06d", s);
                        out.write(EventJson.turn("e-" + s + "-t" + turn.seq(), TENANT, session, clock += 10, turn));
                        records++;
                        if ((t + 1) % flags.handoffEvery() == 0) {
                            int n = (t + 1) / flags.handoffEvery();
                            Target target = n % 4 == 0 ? Target.CLAUDE_CLI : Target.LOCAL;
                            String to = SessionGenerator.AGENTS.get(n % SessionGenerator.AGENTS.size());
                            Handoff h = new Handoff("h-" + n, turn.agent().equals("user") ? null : turn.agent(), to,
                                target, null, null, null);
                            out.write(EventJson.handoff("e-" + s + "-h" + n, TENANT, session, clock += 10, h));
                            records++;
                            handoffs++;
                        }
                    }
                }
            }
        }
        return new long[] {records, handoffs, Files.size(file)};
    }

    /** Samples the broker's disk use until stopped. */
    private static final class DiskSampler implements AutoCloseable {
        final AtomicLong peak = new AtomicLong();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        DiskSampler(EmbeddedKafka kafka) {
            thread = new Thread(() -> {
                while (!stop.get()) {
                    peak.accumulateAndGet(kafka.diskUsageBytes(), Math::max);
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "disk-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        /** Stops sampling and waits for the sampler, so that {@link #peak} is final. */
        void stopSampling() throws InterruptedException {
            stop.set(true);
            thread.interrupt();
            thread.join();
        }

        @Override
        public void close() {
            try {
                stopSampling();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static Outcome passThrough(EmbeddedKafka kafka, Path input, Path dir, long records, long bytes,
                               Map<String, String> settings) throws Exception {
        String run = "pt-" + Long.toString(System.nanoTime(), 36);
        String in = run + ".in";
        String out = run + ".out";
        long started = System.nanoTime();
        long outputs = 0;
        try (DiskSampler disk = new DiskSampler(kafka)) {
            kafka.createTopics(4, Map.of("max.message.bytes", Integer.toString(MAX_BYTES),
                "segment.bytes", Integer.toString(64 * 1024 * 1024)), in, out);
            Topology topology = new Topology();
            topology.addSource("source", new ByteArrayDeserializer(), new ByteArrayDeserializer(), in);
            topology.addSink("sink", out, new ByteArraySerializer(), new ByteArraySerializer(), "source");
            Properties props = new Properties();
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, run);
            props.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve(run).toString());
            props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
            props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "500");
            props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
            props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
            props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
            props.put(StreamsConfig.PRODUCER_PREFIX + ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_BYTES));
            // --set: the same Streams settings as the backfill gets (Baton's own baton.* keys mean nothing here)
            settings.forEach((k, v) -> {
                if (!k.startsWith("baton.")) {
                    props.put(k, v);
                }
            });
            try (KafkaStreams streams = new KafkaStreams(topology, props)) {
                streams.start();
                Properties p = new Properties();
                p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
                p.put(ProducerConfig.ACKS_CONFIG, "all");
                p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
                p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
                p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
                p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_BYTES));
                Properties c = new Properties();
                c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
                c.put(ConsumerConfig.GROUP_ID_CONFIG, run + "-reader");
                c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(MAX_BYTES));
                try (KafkaProducer<byte[], byte[]> producer =
                         new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
                     KafkaConsumer<byte[], byte[]> consumer =
                         new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                     Jsonl.Reader reader = Jsonl.reader(input);
                     Jsonl.Writer writer = Jsonl.writer(dir.resolve(run + ".jsonl"))) {
                    consumer.subscribe(List.of(out));
                    Jsonl.Line line;
                    while ((line = reader.next(1024 * 1024, 64 * 1024)) != null) {
                        if (line.truncated() || Jsonl.isBlank(line.bytes())) {
                            continue;
                        }
                        String key = BackfillRunner.sessionKeyOf(line.bytes());
                        producer.send(new ProducerRecord<>(in, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                            line.bytes()));
                        // read as it goes, as backfill does
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ZERO)) {
                            writer.write(r.value());
                            outputs++;
                        }
                    }
                    producer.flush();
                    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
                    while (outputs < records && System.nanoTime() < deadline) {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                            writer.write(r.value());
                            outputs++;
                        }
                    }
                }
                streams.close(Duration.ofSeconds(30));
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            disk.stopSampling();
            return new Outcome("pass-through replay", records, bytes, seconds, outputs, disk.peak.get());
        }
    }

    static Outcome backfill(EmbeddedKafka kafka, Path input, Path dir, long records, long bytes,
                            Map<String, String> settings) throws Exception {
        Path output = dir.resolve("snapshots.jsonl");
        long started = System.nanoTime();
        try (DiskSampler disk = new DiskSampler(kafka)) {
            // a one-broker cluster: what backfill sets by itself in-process, a user sets in --config
            Path config = dir.resolve("backfill.properties");
            StringBuilder properties = new StringBuilder("replication.factor=1\n");
            settings.forEach((k, v) -> properties.append(k).append('=').append(v).append('\n'));
            Files.writeString(config, properties.toString());
            int code = new BackfillRunner(new BackfillOptions(input, output, null, kafka.bootstrapServers(), config,
                Duration.ofHours(3), true)).run();
            double seconds = (System.nanoTime() - started) / 1e9;
            if (code != 0) {
                throw new IllegalStateException("backfill exited " + code);
            }
            disk.stopSampling();
            return new Outcome("baton backfill", records, bytes, seconds, Jsonl.countRecords(output), disk.peak.get());
        }
    }

    /** The number of distinct {@code snapshot_id}s in a JSONL file of snapshots (each hand-off once: = lines). */
    static long distinctSnapshotIds(Path snapshots) throws IOException {
        Set<String> ids = new HashSet<>();
        JsonFactory json = new JsonFactory();
        try (Jsonl.Reader reader = Jsonl.reader(snapshots)) {
            Jsonl.Line line;
            while ((line = reader.next(MAX_BYTES, 1024)) != null) {
                if (Jsonl.isBlank(line.bytes())) {
                    continue;
                }
                try (JsonParser p = json.createParser(line.bytes())) {
                    p.nextToken();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        p.nextToken();
                        if (name.equals("snapshot_id")) {
                            ids.add(p.getText());
                            break;
                        }
                        p.skipChildren();
                    }
                }
            }
        }
        return ids.size();
    }

    static void report(Outcome pass, Outcome back) {
        System.out.println();
        System.out.println("| run | records | MB | seconds | records/s | MB/s | outputs | broker disk peak MB |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Outcome o : pass == null ? List.of(back) : List.of(pass, back)) {
            System.out.printf(Locale.ROOT, "| %s | %,d | %,.1f | %.1f | %,.0f | %.2f | %,d | %,.0f |%n", o.name(),
                o.records(), o.bytes() / 1e6, o.seconds(), o.recordsPerSecond(), o.bytes() / 1e6 / o.seconds(),
                o.outputs(), o.diskPeak() / 1e6);
        }
        if (pass != null) {
            System.out.printf(Locale.ROOT, "%nbackfill / pass-through: %.3f× (target ≥ 0.6×)%n",
                back.recordsPerSecond() / pass.recordsPerSecond());
        }
    }
}
