package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.cli.BatonCommand;
import dev.baton.consumer.SnapshotPrompts;
import dev.baton.engine.model.SessionKey;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.serde.HttpSchemaRegistryClient;

/**
 * The consumer kits of examples/consumers/ against {@code baton run} (Avro, the real registry, the
 * in-process broker): each kit reads every snapshot read_committed and prints what the receiving
 * agent gets; that must equal the Java API ({@code SnapshotPrompts}) applied to
 * {@code baton backfill}'s output for the same sessions. A kit runs when its tools are installed
 * (Python: Debian's python3-avro and python3-confluent-kafka; Node: {@code npm ci} in its directory;
 * .ci/run installs both when it can) and is skipped otherwise; under CI=true at least one must run.
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

    private static void awaitReady(String url) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(baton.isAlive()).as("baton run exited:\n%s", Files.readString(dir.resolve("run.log"))).isTrue();
            try {
                if (http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new AssertionError("baton run not ready:\n" + Files.readString(dir.resolve("run.log")));
    }
}
