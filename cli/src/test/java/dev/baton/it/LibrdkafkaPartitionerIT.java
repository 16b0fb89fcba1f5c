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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import org.apache.kafka.common.utils.Utils;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.service.command.ServiceCommand;

/**
 * Sessions produced by librdkafka's default partitioner (CRC-32 of the key: Python's confluent-kafka here, as Go's
 * client and kcat do) are found by {@code /sessions} on two instances when {@code baton.input.partitioner=crc32}: each
 * query goes to the instance that processed the session, not to the one Java's murmur2 would name. Runs with Debian's
 * python3-confluent-kafka; skipped without it, except under CI=true (.ci/run installs it), where it fails.
 */
class LibrdkafkaPartitionerIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final String TOKEN = "partitioner-it-token-0123456789abcdef";
    private static final int PARTITIONS = 4;
    private static final int SESSIONS = 24;
    private static final String PRODUCER = String.join("\n",
            "import json, sys",
            "from confluent_kafka import Producer",
            "# no partitioner set: librdkafka's default, consistent_random (CRC-32 of the key)",
            "p = Producer({'bootstrap.servers': sys.argv[1]})",
            "def report(err, msg):",
            "    if err is not None:",
            "        sys.exit('delivery failed: %s' % err)",
            "    print('%s %d' % (msg.key().decode(), msg.partition()))",
            "for i in range(int(sys.argv[2])):",
            "    event = {'event_id': 'e-%d' % i, 'tenant_id': 'acme', 'session_id': 's-%d' % i,",
            "             'occurred_at': '2026-12-01T09:00:00Z',",
            "             'turn': {'seq': 0, 'agent': 'support', 'role': 'USER', 'text': 'hello %d' % i}}",
            "    p.produce('baton.session-events', key=('acme/s-%d' % i).encode(), value=json.dumps(event).encode(),",
            "              on_delivery=report)",
            "if p.flush(60) != 0:",
            "    sys.exit('not every record was delivered')",
            "");

    @TempDir
    Path dir;
    private final List<Process> instances = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void stop() throws InterruptedException {
        for (Process p : instances) {
            p.destroy();
        }
        for (Process p : instances) {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void shouldFindSessionsProducedWithLibrdkafkasDefaultPartitionerOnEveryInstance() throws Exception {
        requirePythonClient();
        kafka.kafka().createTopics(PARTITIONS, "baton.session-events");
        kafka.kafka().createTopics(PARTITIONS, Map.of("max.message.bytes", "8388608"), "baton.context-snapshots",
                "baton.dead-letters");
        kafka.kafka().createTopics(1, Map.of("cleanup.policy", "compact"), "baton.tenant-policies");
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, TOKEN + " acme\n");
        List<Integer> ports = List.of(freePort(), freePort());
        for (int i = 0; i < ports.size(); i++) {
            instances.add(start(i, ports.get(i), tokens));
        }
        for (int i = 0; i < ports.size(); i++) {
            awaitReady(i, ports.get(i));
        }

        // the Python producer; its delivery reports say where librdkafka put each key
        Path script = dir.resolve("produce.py");
        Files.writeString(script, PRODUCER);
        Process producer = new ProcessBuilder("/usr/bin/python3", script.toString(), kafka.bootstrapServers(),
                Integer.toString(SESSIONS)).redirectError(dir.resolve("produce.err").toFile()).start();
        String reports = new String(producer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(producer.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(producer.exitValue()).as(Files.readString(dir.resolve("produce.err"))).isZero();
        Map<String, Integer> partitionOf = new TreeMap<>();
        reports.lines().map(l -> l.split(" ")).forEach(f -> partitionOf.put(f[0], Integer.parseInt(f[1])));
        assertThat(partitionOf).hasSize(SESSIONS);
        // librdkafka's partition is the CRC-32 one Baton computes, and for many keys not Java's murmur2 one
        partitionOf.forEach((key, partition) -> assertThat(partition).as(key).isEqualTo(crc32(key)));
        assertThat(partitionOf.entrySet()).filteredOn(e -> e.getValue() != murmur2(e.getKey())).hasSizeGreaterThan(SESSIONS / 2);

        // every session, asked on either instance, answered by the one that holds it
        Map<String, Integer> statuses = new TreeMap<>();
        // 404 until processed, 503 while rebalancing: ask again for the ones not answered yet
        Awaitility.await("every session answered").atMost(Duration.ofSeconds(90)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(250)).until(() -> {
                    for (String key : partitionOf.keySet()) {
                        for (int port : ports) {
                            if (statuses.getOrDefault(key + " on :" + port, -1) != 200) {
                                statuses.put(key + " on :" + port, query(port, key));
                            }
                        }
                    }
                    return statuses.values().stream().allMatch(s -> s == 200);
                });
        assertThat(statuses).as("statuses; instance logs:%n%s%n%s", log(0), log(1)).allSatisfy((k, s) -> assertThat(s).isEqualTo(200));
    }

    private Process start(int index, int port, Path tokens) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dlog4j2.shutdownHookEnabled=false", "-cp", System.getProperty("java.class.path"),
                ServiceCommand.class.getName(), "run", "--bootstrap-servers", kafka.bootstrapServers(), "--format", "json",
                "--http-port", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(dir.resolve("run-" + index + ".log").toFile());
        Map<String, String> env = builder.environment();
        env.put("BATON_INPUT_PARTITIONER", "crc32");
        env.put("BATON_HTTP_TOKENS_FILE", tokens.toString());
        env.put("BATON_STATE_DIR", dir.resolve("state-" + index).toString());
        env.put("BATON_REPLICATION_FACTOR", "1");
        env.put("BATON_NUM_STANDBY_REPLICAS", "0");
        env.put("BATON_APPLICATION_ID", "baton-partitioner-it");
        env.put("BATON_APPLICATION_SERVER", "127.0.0.1:" + port);
        env.put("BATON_CLIENT_ID", "instance-" + index);
        return builder.start();
    }

    private int query(int port, String key) throws Exception {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/sessions/" + key))
                    .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    private void awaitReady(int index, int port) throws Exception {
        Awaitility.await("instance " + index + " ready").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .failFast("instance " + index + " exited", () -> assertThat(instances.get(index).isAlive())
                        .as("log:%n%s", log(index)).isTrue())
                .untilAsserted(() -> {
                    int status;
                    try {
                        status = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                                .GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                    } catch (IOException notYet) {
                        status = -1; // not listening yet
                    }
                    assertThat(status).as("instance %d /readyz; log:%n%s", index, log(index)).isEqualTo(200);
                });
    }

    private String log(int index) {
        try {
            return Files.readString(dir.resolve("run-" + index + ".log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static int crc32(String key) {
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % PARTITIONS);
    }

    private static int murmur2(String key) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void requirePythonClient() throws Exception {
        boolean present;
        try {
            Process p = new ProcessBuilder("/usr/bin/python3", "-c", "import confluent_kafka").redirectErrorStream(true).start();
            present = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException missing) {
            present = false;
        }
        if (!present) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("python3-confluent-kafka is not installed, and CI=true (.ci/run installs it)");
            }
            Assumptions.abort("python3-confluent-kafka is not installed (apt-get install python3-confluent-kafka)");
        }
    }
}
