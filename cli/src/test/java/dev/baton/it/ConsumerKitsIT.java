package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import dev.baton.avro.ContextSnapshot;
import dev.baton.cli.BatonCommand;
import dev.baton.consumer.SnapshotPrompts;
import dev.baton.engine.model.SessionKey;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.HttpSchemaRegistryClient;

/**
 * The consumer kits of examples/consumers/ against {@code baton run} (Avro, the real registry, the
 * in-process broker): each kit reads every snapshot read_committed and prints what the receiving
 * agent gets; that must equal the Java API ({@code SnapshotPrompts}) applied to
 * {@code baton backfill}'s output for the same sessions. A kit runs when its tools are installed
 * (Python: Debian's python3-avro and python3-confluent-kafka; Node: {@code npm ci} in its directory;
 * .ci/run installs both) and is skipped otherwise; under CI=true a kit that cannot run fails its tests.
 *
 * <p>Also, per kit, what a production consumer relies on: a record that cannot be decoded stops the kit and is not
 * committed (a restart meets it again) unless a dead-letter file is set; a snapshot delivered twice is handled once;
 * records of the JSON form (a {@code baton.format=json} topic, {@code backfill}'s file) give the same lines as the
 * Avro form, with {@code function.arguments} strings; and a cluster that authenticates with SCRAM-SHA-512 (SASL)
 * read through a registry that requires basic auth.
 */
class ConsumerKitsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path KITS = Paths.get("..", "examples", "consumers").toAbsolutePath().normalize();
    private static final String MODEL = "qwen3-coder";

    private static final KafkaBroker kafka = new KafkaBroker();
    private static final RealSchemaRegistry registry = new RealSchemaRegistry();

    @TempDir
    static Path dir;

    private static Process baton;
    private static Map<String, JsonNode> expected;

    @BeforeAll
    static void runBatonOnTheSampleSessions() throws Exception {
        registry.start();
        kafka.start();
        kafka.kafka().createTopics(2, "baton.session-events");
        // run refuses output topics that cannot hold its largest record (baton.max-output-bytes, 8 MiB)
        kafka.kafka().createTopics(2, Map.of("max.message.bytes", "8388608"), "baton.context-snapshots",
                "baton.dead-letters");
        kafka.kafka().createTopics(1, Map.of("cleanup.policy", "compact"), "baton.tenant-policies");
        Path input = Paths.get("..", "replay", "src", "main", "resources", "demo", "sessions.jsonl");

        // what backfill makes of the same sessions, through the Java API
        Path backfill = dir.resolve("backfill.jsonl");
        Path backfillConfig = dir.resolve("backfill.properties");
        Files.writeString(backfillConfig, "replication.factor=1\n");
        CommandOutputs.run("backfill", "-i", input.toString(), "-o", backfill.toString(), "--no-progress",
                "--bootstrap-servers", kafka.bootstrapServers(), "--config", backfillConfig.toString());
        expected = new TreeMap<>();
        for (String line : Files.readAllLines(backfill)) {
            JsonNode snapshot = JSON.readTree(line);
            expected.put(snapshot.get("snapshot_id").asText(), SnapshotPrompts.forTarget(snapshot, MODEL));
        }
        assertThat(expected).isNotEmpty();

        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ProcessBuilder builder = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dlog4j2.shutdownHookEnabled=false", "-cp", System.getProperty("java.class.path"),
                BatonCommand.class.getName(), "run", "--bootstrap-servers", kafka.bootstrapServers(), "--format", "avro",
                "--schema-registry-url", registry.url(), "--http-port", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(dir.resolve("run.log").toFile());
        builder.environment().put("BATON_STATE_DIR", dir.resolve("state").toString());
        builder.environment().put("BATON_REPLICATION_FACTOR", "1");
        builder.environment().put("BATON_NUM_STANDBY_REPLICAS", "0");
        builder.environment().put("BATON_APPLICATION_ID", "baton-kits-it");
        builder.environment().put("BATON_APPLICATION_SERVER", "localhost:" + port);
        baton = builder.start();
        awaitReady("http://localhost:" + port + "/readyz");

        SessionEventEncoder encoder = SessionEventEncoder.avro(new HttpSchemaRegistryClient(registry.url()));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null))) {
            for (String line : Files.readAllLines(input)) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode event = JSON.readTree(line);
                String key = SessionKey.format(event.get("tenant_id").asText(), event.get("session_id").asText());
                producer.send(new ProducerRecord<>("baton.session-events", key.getBytes(StandardCharsets.UTF_8),
                        encoder.encode("baton.session-events", line.getBytes(StandardCharsets.UTF_8))));
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (baton != null) {
                baton.destroy();
                if (!baton.waitFor(60, TimeUnit.SECONDS)) {
                    baton.destroyForcibly();
                }
            }
        } finally {
            kafka.close();
            registry.close();
        }
    }

    @Test
    void shouldTurnEverySnapshotIntoWhatTheAgentGetsWithThePythonKit() throws Exception {
        requireTools(List.of("/usr/bin/python3", "-c", "import avro, confluent_kafka"), "python3-avro and python3-confluent-kafka");
        compare(runKit(List.of("/usr/bin/python3", KITS.resolve("python/consumer.py").toString()), "python"));
    }

    @Test
    void shouldTurnEverySnapshotIntoWhatTheAgentGetsWithTheNodeKit() throws Exception {
        Path node = KITS.resolve("node");
        if (!Files.isDirectory(node.resolve("node_modules/kafkajs"))) {
            skipOrFail("the Node kit is not installed (cd examples/consumers/node && npm ci)");
        }
        compare(runKit(List.of("node", node.resolve("consumer.js").toString()), "node"));
    }

    private static void compare(List<String> lines) throws IOException {
        Map<String, JsonNode> actual = new TreeMap<>();
        for (String line : lines) {
            JsonNode out = JSON.readTree(line);
            assertThat(actual.put(out.get("snapshot_id").asText(), out)).as("one line per snapshot").isNull();
        }
        assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
        expected.forEach((id, want) -> assertThat(actual.get(id)).as(id).isEqualTo(want));
        assertThat(actual.values()).anyMatch(l -> l.has("cli_prompt")).anyMatch(l -> l.has("chat_request"));
    }

    private List<String> runKit(List<String> command, String name) throws Exception {
        Path out = dir.resolve(name + ".jsonl");
        Path err = dir.resolve(name + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        builder.environment().put("SCHEMA_REGISTRY_URL", registry.url());
        builder.environment().put("GROUP_ID", "kit-" + name);
        builder.environment().put("MODEL", MODEL);
        builder.environment().put("MAX_SNAPSHOTS", Integer.toString(expected.size()));
        Process kit = builder.start();
        boolean done = kit.waitFor(240, TimeUnit.SECONDS);
        if (!done) {
            kit.destroyForcibly();
            kit.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(done).as("%s kit finished (%d of %d snapshots printed); stderr:%n%s%nbaton run:%n%s", name,
                Files.readAllLines(out).size(), expected.size(), Files.readString(err),
                Files.readString(dir.resolve("run.log"))).isTrue();
        assertThat(kit.exitValue()).as(Files.readString(err)).isZero();
        return Files.readAllLines(out);
    }

    private static void requireTools(List<String> probe, String what) throws Exception {
        try {
            Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
            if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return;
            }
        } catch (IOException missing) {
            // below
        }
        skipOrFail(what + " not installed");
    }

    private static void skipOrFail(String why) {
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError(why + ": .ci/run installs it, and CI runs every kit");
        }
        Assumptions.abort(why);
    }

    @Test
    void shouldRunAtLeastOneKitUnderCi() throws Exception {
        boolean python = new ProcessBuilder("/usr/bin/python3", "-c", "import avro, confluent_kafka").start().waitFor() == 0;
        boolean node = Files.isDirectory(KITS.resolve("node/node_modules/kafkajs"));
        if ("true".equals(System.getenv("CI"))) {
            assertThat(python || node).as("no consumer kit can run (.ci/run installs them)").isTrue();
        }
    }

    private static void awaitReady(String url) {
        HttpClient http = HttpClient.newHttpClient();
        Awaitility.await(url).atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                .failFast("baton run exited", () -> assertThat(baton.isAlive())
                        .as("baton run exited:\n%s", Files.readString(dir.resolve("run.log"))).isTrue())
                .untilAsserted(() -> assertThat(status(http, url))
                        .as("baton run not ready:\n%s", Files.readString(dir.resolve("run.log"))).isEqualTo(200));
    }

    /** The status {@code url} answers with, -1 while nothing listens. */
    private static int status(HttpClient http, String url) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException notYet) {
            return -1;
        }
    }

    // ---- delivery, dedupe, the JSON form and authentication, per kit ----

    private static List<ConsumerRecord<byte[], byte[]>> snapshotRecords;
    private static final AtomicInteger RUNS = new AtomicInteger();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"python", "node"})
    void shouldNotCommitARecordThatFailsToDecodeAndStopUnlessToldToDeadLetterIt(String kit) throws Exception {
        List<String> command = kitCommand(kit, "consumer");
        List<ConsumerRecord<byte[], byte[]>> records = snapshotRecords();
        byte[] good = records.get(0).value();
        byte[] after = records.get(2).value();
        // the Confluent header of a real snapshot, then a cut Avro body: it cannot be decoded
        byte[] poison = Arrays.copyOf(records.get(1).value(), 12);
        String topic = "kits.poison." + kit;
        produce(kafka.producerProps(null), topic, List.of(good, poison, after));
        String group = "kits-poison-" + kit;
        Map<String, String> env = Map.of("TOPIC", topic, "GROUP_ID", group, "MAX_SNAPSHOTS", "3", "IDLE_EXIT_MS", "30000");

        KitRun first = runKitWith(kit, command, env);
        assertThat(committed(kafka.consumerProps(group), group, topic)).as("the failed record is not committed").isEqualTo(1);
        assertThat(first.exit()).as(first.err()).isEqualTo(1);
        assertThat(ids(first.out())).containsExactly(snapshotId(good));
        assertThat(first.err()).contains("stopped at " + topic + "[0]@1");

        KitRun restart = runKitWith(kit, command, env);
        assertThat(restart.exit()).as(restart.err()).isEqualTo(1);
        assertThat(restart.out()).as("the record before it was committed").isEmpty();
        assertThat(restart.err()).as("a restart meets the record again").contains("stopped at " + topic + "[0]@1");
        assertThat(committed(kafka.consumerProps(group), group, topic)).isEqualTo(1);

        Path deadLetters = dir.resolve(kit + "-dead-letters.jsonl");
        Map<String, String> withDeadLetters = new HashMap<>(env);
        withDeadLetters.put("DEAD_LETTER_FILE", deadLetters.toString());
        withDeadLetters.put("MAX_SNAPSHOTS", "1");
        KitRun aside = runKitWith(kit, command, withDeadLetters);
        assertThat(aside.exit()).as(aside.err()).isZero();
        assertThat(ids(aside.out())).containsExactly(snapshotId(after));
        expectLines(aside.out());
        List<String> dead = Files.readAllLines(deadLetters);
        assertThat(dead).hasSize(1);
        JsonNode entry = JSON.readTree(dead.get(0));
        assertThat(entry.get("topic").asText()).isEqualTo(topic);
        assertThat(entry.get("offset").asLong()).isEqualTo(1);
        assertThat(Base64.getDecoder().decode(entry.get("value_base64").asText())).isEqualTo(poison);
        assertThat(entry.get("error").asText()).isNotBlank();
        assertThat(committed(kafka.consumerProps(group), group, topic)).isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"python", "node"})
    void shouldHandleASnapshotDeliveredTwiceOnce(String kit) throws Exception {
        List<String> command = kitCommand(kit, "consumer");
        List<ConsumerRecord<byte[], byte[]>> records = snapshotRecords();
        byte[] first = records.get(0).value();
        byte[] second = records.get(1).value();
        String topic = "kits.duplicates." + kit;
        produce(kafka.producerProps(null), topic, List.of(first, first, second));
        String group = "kits-duplicates-" + kit;
        // stops after two handled snapshots: without dedupe those are the two copies of the first one
        KitRun run = runKitWith(kit, command, Map.of("TOPIC", topic, "GROUP_ID", group, "MAX_SNAPSHOTS", "2"));
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(ids(run.out())).containsExactly(snapshotId(first), snapshotId(second));
        expectLines(run.out());
        assertThat(run.err()).contains("skipped " + snapshotId(first) + " at " + topic + "[0]@1");
        assertThat(committed(kafka.consumerProps(group), group, topic)).as("the duplicate is committed too").isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"python", "node"})
    void shouldGiveTheJsonFormTheLinesOfTheAvroFormWithArgumentsAsStrings(String kit) throws Exception {
        List<String> command = kitCommand(kit, "consumer");
        List<byte[]> values = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("backfill.jsonl"))) {
            values.add(line.getBytes(StandardCharsets.UTF_8));
        }
        String topic = "kits.json." + kit;
        produce(kafka.producerProps(null), topic, values);
        KitRun run = runKitWith(kit, command, Map.of("TOPIC", topic, "GROUP_ID", "kits-json-" + kit,
                "MAX_SNAPSHOTS", Integer.toString(expected.size())));
        assertThat(run.exit()).as(run.err()).isZero();
        compare(run.out());
        assertArgumentsAreStrings(run.out());

        // the same file mapped by the kit's prompts program (no broker)
        KitRun file = runKitWith(kit, List.of(command.get(0), kitCommand(kit, "prompts").get(1), dir.resolve("backfill.jsonl").toString(),
                MODEL), Map.of());
        assertThat(file.exit()).as(file.err()).isZero();
        compare(file.out());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"python", "node"})
    void shouldReadASaslClusterThroughARegistryThatWantsBasicAuth(String kit) throws Exception {
        List<String> command = kitCommand(kit, "consumer");
        List<byte[]> values = snapshotRecords().stream().map(ConsumerRecord::value).toList();
        String user = "kit-reader";
        String password = "s3cret:with@signs";
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger served = new AtomicInteger();
        HttpServer proxy = registryRequiringBasicAuth("registry-user", "p@ss:word/1", refused, served);
        try (SaslScramCluster cluster = SaslScramCluster.start(user)) {
            cluster.addScramUser(user, password);
            String topic = "kits.sasl";
            produce(cluster.plainAdmin(), topic, values);
            int port = proxy.getAddress().getPort();
            // Python: the registry's credentials in the URL's user-info; Node: in their own settings
            String registrySettings = kit.equals("python")
                    ? "SCHEMA_REGISTRY_URL=http://registry-user:p%40ss%3Aword%2F1@127.0.0.1:" + port + "/apis/ccompat/v7\n"
                    : "SCHEMA_REGISTRY_URL=http://127.0.0.1:" + port + "/apis/ccompat/v7\nSCHEMA_REGISTRY_USERNAME=registry-user\n"
                            + "SCHEMA_REGISTRY_PASSWORD=p@ss:word/1\n";
            String common = "BOOTSTRAP_SERVERS=" + cluster.bootstrapServers() + "\nSECURITY_PROTOCOL=SASL_PLAINTEXT\n"
                    + registrySettings + "TOPIC=" + topic + "\nGROUP_ID=kits-sasl-" + kit + "\n";
            Map<String, String> env = new HashMap<>();
            // the settings come from the file alone: the environment's would win over it
            env.put("BOOTSTRAP_SERVERS", "");
            env.put("SCHEMA_REGISTRY_URL", "");
            env.put("MAX_SNAPSHOTS", Integer.toString(values.size()));
            env.put("CONFIG_FILE", saslConfig(kit + "-scram", common, "SCRAM-SHA-512", user, password).toString());

            if (kit.equals("python") && !librdkafkaLogsInWithScramToKafka4()) {
                // Debian 12's librdkafka 2.0.2: Kafka 4 refuses its SCRAM proof; the kit says so and stops
                KitRun scram = runKitWith(kit, command, env);
                assertThat(scram.exit()).as(scram.err()).isEqualTo(1);
                assertThat(scram.err()).contains("fixed in 2.6.1").contains("stopped: ").contains("SASL authentication error");
                assertThat(scram.out()).isEmpty();
                // PLAIN (over TLS in production) works with any librdkafka: the test kit's PLAIN user
                env.put("CONFIG_FILE", saslConfig(kit + "-plain", common, "PLAIN", "plain-admin", "plain-admin-secret").toString());
            }
            KitRun run = runKitWith(kit, command, env);
            assertThat(run.exit()).as(run.err()).isZero();
            compare(run.out());
            assertThat(served.get()).as("schemas read through the authenticating registry").isPositive();
            assertThat(refused.get()).as("requests without the right credentials").isZero();
            assertThat(run.err()).doesNotContain(password).doesNotContain("p@ss:word/1");
        } finally {
            proxy.stop(0);
        }
    }

    /** A CONFIG_FILE with {@code common} and the SASL login, its password in a file of its own (as a mounted Secret). */
    private static Path saslConfig(String name, String common, String mechanism, String user, String password) throws IOException {
        Path secret = dir.resolve(name + "-sasl-password");
        Files.writeString(secret, password + "\n");
        Path config = dir.resolve(name + "-kit.conf");
        Files.writeString(config, "# the cluster, as the production overlay's (there with SASL_SSL and the CA)\n" + common
                + "SASL_MECHANISM=" + mechanism + "\nSASL_USERNAME=" + user + "\nSASL_PASSWORD_FILE=" + secret + "\n");
        return config;
    }

    /** Whether the Python kit's librdkafka is 2.6.1 or later (earlier ones cannot log in with SCRAM to Kafka 4). */
    private static boolean librdkafkaLogsInWithScramToKafka4() throws Exception {
        Process p = new ProcessBuilder("/usr/bin/python3", "-c", "import confluent_kafka; print(confluent_kafka.libversion()[1])")
                .redirectErrorStream(true).start();
        String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return Long.parseLong(version) >= 0x020601FFL;
    }

    /** The kit's program ({@code consumer} or {@code prompts}); skipped, or failed under CI, when its tools are missing. */
    private static List<String> kitCommand(String kit, String program) throws Exception {
        if (kit.equals("python")) {
            requireTools(List.of("/usr/bin/python3", "-c", "import avro, confluent_kafka"), "python3-avro and python3-confluent-kafka");
            return List.of("/usr/bin/python3", KITS.resolve("python").resolve(program + ".py").toString());
        }
        if (!Files.isDirectory(KITS.resolve("node/node_modules/kafkajs"))) {
            skipOrFail("the Node kit is not installed (cd examples/consumers/node && npm ci)");
        }
        return List.of("node", KITS.resolve("node").resolve(program + ".js").toString());
    }

    private record KitRun(int exit, List<String> out, String err) {
    }

    /** Runs a kit to its end with the test's broker and registry, then {@code env} (an empty value removes a setting). */
    private static KitRun runKitWith(String kit, List<String> command, Map<String, String> env) throws Exception {
        int n = RUNS.incrementAndGet();
        Path out = dir.resolve(kit + "-run-" + n + ".out");
        Path err = dir.resolve(kit + "-run-" + n + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        builder.environment().put("SCHEMA_REGISTRY_URL", registry.url());
        builder.environment().put("MODEL", MODEL);
        builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        env.forEach((k, v) -> {
            if (v.isEmpty()) {
                builder.environment().remove(k);
            } else {
                builder.environment().put(k, v);
            }
        });
        Process process = builder.start();
        boolean done = process.waitFor(240, TimeUnit.SECONDS);
        if (!done) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(done).as("%s %s finished; stdout:%n%s%nstderr:%n%s", kit, command, Files.readString(out), Files.readString(err))
                .isTrue();
        return new KitRun(process.exitValue(), Files.readAllLines(out), Files.readString(err));
    }

    /** The Avro records of baton.context-snapshots (read once, committed only). */
    private static synchronized List<ConsumerRecord<byte[], byte[]>> snapshotRecords() {
        if (snapshotRecords == null) {
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(kafka.consumerProps("kits-it-copy"))) {
                c.subscribe(List.of("baton.context-snapshots"));
                Awaitility.await(expected.size() + " snapshots").atMost(Duration.ofSeconds(120)).pollInSameThread()
                        .pollInterval(Duration.ZERO).until(() -> {
                            c.poll(Duration.ofMillis(200)).forEach(records::add);
                            return records.size() >= expected.size();
                        });
            }
            assertThat(records).hasSize(expected.size()).hasSizeGreaterThanOrEqualTo(3);
            snapshotRecords = records;
        }
        return snapshotRecords;
    }

    private static String snapshotId(byte[] avro) {
        return new ConfluentAvroCodec<>(new HttpSchemaRegistryClient(registry.url()), ContextSnapshot.class).deserialize(avro)
                .getSnapshotId();
    }

    /** Writes {@code values} in order to a new one-partition topic. */
    private static void produce(Properties client, String topic, List<byte[]> values) throws Exception {
        try (Admin admin = Admin.create(client)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("max.message.bytes", "8388608"))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Properties props = new Properties();
        props.putAll(client);
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        props.put("max.request.size", "8388608");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (byte[] value : values) {
                producer.send(new ProducerRecord<>(topic, 0, null, value)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** The group's committed offset of the topic's partition 0, or -1. */
    private static long committed(Properties client, String group, String topic) throws Exception {
        try (Admin admin = Admin.create(client)) {
            OffsetAndMetadata offset = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .get(new TopicPartition(topic, 0));
            return offset == null ? -1 : offset.offset();
        }
    }

    private static List<String> ids(List<String> lines) throws IOException {
        List<String> ids = new ArrayList<>();
        for (String line : lines) {
            ids.add(JSON.readTree(line).get("snapshot_id").asText());
        }
        return ids;
    }

    /** Every line is what the Java API gives for its snapshot. */
    private static void expectLines(List<String> lines) throws IOException {
        for (String line : lines) {
            JsonNode out = JSON.readTree(line);
            assertThat(out).isEqualTo(expected.get(out.get("snapshot_id").asText()));
        }
    }

    private static void assertArgumentsAreStrings(List<String> lines) throws IOException {
        int calls = 0;
        for (String line : lines) {
            for (JsonNode m : JSON.readTree(line).path("chat_request").path("messages")) {
                for (JsonNode c : m.path("tool_calls")) {
                    JsonNode args = c.at("/function/arguments");
                    assertThat(args.isTextual()).as("%s", c).isTrue();
                    assertThat(JSON.readTree(args.asText()).isObject()).isTrue();
                    calls++;
                }
            }
        }
        assertThat(calls).as("tool calls in the demo snapshots").isPositive();
    }

    /**
     * The test registry behind a proxy on 127.0.0.1 that answers 401 unless a request carries basic auth for
     * {@code user}/{@code password}, as a registry of a production cluster does.
     */
    private static HttpServer registryRequiringBasicAuth(String user, String password, AtomicInteger refused, AtomicInteger served)
            throws IOException {
        String expectedAuth = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        URI origin = URI.create(registry.url()).resolve("/");
        HttpClient http = HttpClient.newHttpClient();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (!expectedAuth.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                    refused.incrementAndGet();
                    exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"registry\"");
                    exchange.sendResponseHeaders(401, -1);
                    return;
                }
                HttpResponse<byte[]> answer = http.send(HttpRequest.newBuilder(origin.resolve(exchange.getRequestURI().toString()))
                        .GET().build(), HttpResponse.BodyHandlers.ofByteArray());
                served.incrementAndGet();
                answer.headers().firstValue("Content-Type").ifPresent(t -> exchange.getResponseHeaders().add("Content-Type", t));
                exchange.sendResponseHeaders(answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
                try (OutputStream body = exchange.getResponseBody()) {
                    body.write(answer.body());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
        return server;
    }
}
