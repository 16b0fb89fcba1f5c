package dev.baton.cli;

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
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.it.KafkaBroker;

/**
 * {@code baton run} as a real process against a real broker: it becomes ready, turns a hand-off into a
 * snapshot, answers health, metrics and session queries over HTTP, and stops cleanly on SIGTERM.
 */
class RunCommandIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private static final String TOKEN = "run-it-token-0123456789abcdef0123456789";

    @TempDir
    Path stateDir;

    @Test
    void shouldServeSnapshotsHealthMetricsAndQueriesAndStopOnSigterm() throws Exception {
        kafka.kafka().createTopics(2, "baton.session-events");
        // the output topics take a record of baton.max-output-bytes (8 MiB), or run refuses to start
        kafka.kafka().createTopics(2, Map.of("max.message.bytes", "8388608"), "baton.context-snapshots",
                "baton.dead-letters");
        kafka.kafka().createTopics(1, Map.of("cleanup.policy", "compact"), "baton.tenant-policies");
        int port = freePort();
        Path log = stateDir.resolve("run.log");
        ProcessBuilder builder = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                // the test class path has the tests' log4j config, which lets log4j stop before Baton has logged its exit
                "-Dlog4j2.shutdownHookEnabled=false",
                "-cp", System.getProperty("java.class.path"), BatonCommand.class.getName(),
                "run", "--bootstrap-servers", kafka.bootstrapServers(), "--format", "json", "--http-port", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("BATON_STATE_DIR", stateDir.resolve("state").toString());
        builder.environment().put("BATON_REPLICATION_FACTOR", "1");
        builder.environment().put("BATON_NUM_STANDBY_REPLICAS", "0");
        builder.environment().put("BATON_APPLICATION_ID", "baton-run-it");
        builder.environment().put("BATON_APPLICATION_SERVER", "localhost:" + port);
        Path tokens = stateDir.resolve("tokens");
        Files.writeString(tokens, TOKEN + " acme\n");
        builder.environment().put("BATON_HTTP_TOKENS_FILE", tokens.toString());
        Process process = builder.start();
        try {
            awaitStatus("http://localhost:" + port + "/readyz", 200, Duration.ofSeconds(90), process, log);
            assertThat(get("http://localhost:" + port + "/healthz").statusCode()).isEqualTo(200);

            String key = "acme/s-1";
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null))) {
                for (String event : List.of(
                        "{\"event_id\":\"e1\",\"tenant_id\":\"acme\",\"session_id\":\"s-1\",\"occurred_at\":\"2026-11-30T09:00:00Z\","
                                + "\"turn\":{\"seq\":0,\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"Fix the flaky test.\"}}",
                        "{\"event_id\":\"e2\",\"tenant_id\":\"acme\",\"session_id\":\"s-1\",\"occurred_at\":\"2026-11-30T09:00:05Z\","
                                + "\"turn\":{\"seq\":1,\"agent\":\"qwen-coder\",\"role\":\"ASSISTANT\",\"text\":\"Looking.\","
                                + "\"trail\":[{\"call_id\":\"c1\",\"tool\":\"run_tests\",\"arguments\":{\"repeat\":20},"
                                + "\"result\":\"3 failed\",\"status\":\"OK\"}]}}",
                        "{\"event_id\":\"e3\",\"tenant_id\":\"acme\",\"session_id\":\"s-1\",\"occurred_at\":\"2026-11-30T09:00:09Z\","
                                + "\"handoff\":{\"handoff_id\":\"h1\",\"from_agent\":\"qwen-coder\",\"to_agent\":\"claude-opus\","
                                + "\"target\":\"LOCAL\"}}")) {
                    producer.send(new ProducerRecord<>("baton.session-events", key.getBytes(StandardCharsets.UTF_8),
                            event.getBytes(StandardCharsets.UTF_8)));
                }
            }
            JsonNode snapshot = firstSnapshot(Duration.ofSeconds(60));
            assertThat(snapshot.get("snapshot_id").asText()).isEqualTo("acme/s-1/h1");
            assertThat(snapshot.get("turn_count").asLong()).isEqualTo(2);

            assertThat(get("http://localhost:" + port + "/sessions/acme/s-1").statusCode()).isEqualTo(401);
            HttpResponse<String> session = getAuthorized("http://localhost:" + port
                    + "/sessions/acme/s-1?to_agent=claude-opus");
            assertThat(session.statusCode()).as(session.body()).isEqualTo(200);
            JsonNode body = JSON.readTree(session.body());
            assertThat(body.at("/state/turn_count").asLong()).isEqualTo(2);
            assertThat(body.at("/state/remembered_handoff_ids").asInt()).isEqualTo(1);
            assertThat(body.at("/preview/to_agent").asText()).isEqualTo("claude-opus");
            assertThat(getAuthorized("http://localhost:" + port + "/sessions/acme/nobody").statusCode()).isEqualTo(404);
            assertThat(getAuthorized("http://localhost:" + port + "/sessions/acme/bad%2Fid").statusCode()).isEqualTo(400);

            HttpResponse<String> metrics = get("http://localhost:" + port + "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("kafka_stream").contains("baton_snapshots_emitted_total 1.0")
                    .contains("baton_dead_letters_total{code=\"MALFORMED\"} 0.0").contains("jvm_memory");
        } finally {
            process.destroy(); // SIGTERM
            boolean exited = process.waitFor(90, TimeUnit.SECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            String output = Files.readString(log);
            assertThat(exited).as(output).isTrue();
            assertThat(output).contains("Stopped.");
        }
    }

    private JsonNode firstSnapshot(Duration timeout) throws IOException {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("run-it-reader"))) {
            consumer.subscribe(List.of("baton.context-snapshots"));
            List<JsonNode> seen = new ArrayList<>();
            Awaitility.await("a snapshot").atMost(timeout).pollInSameThread().pollInterval(Duration.ZERO).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(JSON.readTree(r.value()));
                }
                return !seen.isEmpty();
            });
            return seen.get(0);
        }
    }

    private void awaitStatus(String url, int status, Duration timeout, Process process, Path log) throws Exception {
        Awaitility.await(url + " answering " + status).atMost(timeout).pollInterval(Duration.ofMillis(250))
                .failFast("baton run exited early", () -> assertThat(process.isAlive())
                        .as("log:\n%s", Files.readString(log)).isTrue())
                .untilAsserted(() -> {
                    int answer;
                    try {
                        answer = get(url).statusCode();
                    } catch (IOException notYet) {
                        answer = -1; // not listening yet
                    }
                    assertThat(answer).as("%s; log:\n%s", url, Files.readString(log)).isEqualTo(status);
                });
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** With the test's bearer token for tenant acme. */
    private HttpResponse<String> getAuthorized(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
