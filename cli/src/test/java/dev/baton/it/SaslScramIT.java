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
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.cli.BatonCommand;

/**
 * {@code baton run} against a broker whose only listener is SASL_PLAINTEXT: Baton's clients (Streams' consumers,
 * producer, admin and the start-up topic check) authenticate with SCRAM-SHA-512, configured through the environment
 * alone ({@code BATON_SECURITY_PROTOCOL}, {@code BATON_SASL_MECHANISM}, {@code BATON_SASL_JAAS_CONFIG}); the password
 * appears neither in Baton's log nor in {@code /metrics}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SaslScramIT {
    private static final String PASSWORD = "scram-pw-7f3a9c1e5b";

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("try") // the test kit's close() declares Exception (hence InterruptedException): not ours
    void shouldAuthenticateWithScramFromTheEnvironmentAndNeverPrintTheSecret() throws Exception {
        try (SaslScramCluster cluster = SaslScramCluster.start("baton")) {
            String bootstrap = cluster.bootstrapServers();
            cluster.addScramUser("baton", PASSWORD);
            try (Admin a = Admin.create(cluster.plainAdmin())) {
                List<NewTopic> topics = new ArrayList<>();
                for (String t : List.of("sasl.session-events", "sasl.context-snapshots", "sasl.dead-letters")) {
                    topics.add(new NewTopic(t, 1, (short) 1).configs(Map.of("max.message.bytes", "8388608")));
                }
                a.createTopics(topics).all().get(30, TimeUnit.SECONDS);
            }

            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path log = dir.resolve("run.log");
            ProcessBuilder pb = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", "-Dlog4j2.shutdownHookEnabled=false", "-cp", System.getProperty("java.class.path"),
                    BatonCommand.class.getName(), "run", "--format", "json", "--http-port", Integer.toString(port))
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            env.put("BATON_BOOTSTRAP_SERVERS", bootstrap);
            env.put("BATON_SECURITY_PROTOCOL", "SASL_PLAINTEXT");
            env.put("BATON_SASL_MECHANISM", "SCRAM-SHA-512");
            env.put("BATON_SASL_JAAS_CONFIG", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                    + "username=\"baton\" password=\"" + PASSWORD + "\";");
            env.put("BATON_STATE_DIR", dir.resolve("state").toString());
            env.put("BATON_REPLICATION_FACTOR", "1");
            env.put("BATON_NUM_STANDBY_REPLICAS", "0");
            env.put("BATON_APPLICATION_ID", "baton-sasl");
            env.put("BATON_APPLICATION_SERVER", "localhost:" + port);
            env.put("BATON_TOPIC_SESSION_EVENTS", "sasl.session-events");
            env.put("BATON_TOPIC_CONTEXT_SNAPSHOTS", "sasl.context-snapshots");
            env.put("BATON_TOPIC_DEAD_LETTERS", "sasl.dead-letters");
            env.put("BATON_TOPIC_TENANT_POLICIES", "");
            Process process = pb.start();
            HttpClient http = HttpClient.newHttpClient();
            try {
                awaitReady(http, port, process, log);
                Properties producer = cluster.plainAdmin();
                producer.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
                producer.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
                try (KafkaProducer<String, String> p = new KafkaProducer<>(producer)) {
                    p.send(new ProducerRecord<>("sasl.session-events", "acme/s1", "{\"event_id\":\"e1\",\"tenant_id\":\"acme\","
                            + "\"session_id\":\"s1\",\"occurred_at\":\"2026-12-01T00:00:00Z\",\"turn\":{\"seq\":0,\"agent\":\"u\","
                            + "\"role\":\"USER\",\"text\":\"hi\"}}"));
                    p.send(new ProducerRecord<>("sasl.session-events", "acme/s1", "{\"event_id\":\"e2\",\"tenant_id\":\"acme\","
                            + "\"session_id\":\"s1\",\"occurred_at\":\"2026-12-01T00:00:01Z\",\"handoff\":{\"handoff_id\":\"h1\","
                            + "\"to_agent\":\"claude\",\"target\":\"LOCAL\"}}"));
                }
                Properties consumer = cluster.plainAdmin();
                consumer.put("group.id", "sasl-reader");
                consumer.put("auto.offset.reset", "earliest");
                consumer.put("isolation.level", "read_committed");
                consumer.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
                consumer.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
                List<String> snapshots = new ArrayList<>();
                try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumer)) {
                    c.subscribe(List.of("sasl.context-snapshots"));
                    Awaitility.await("a snapshot").atMost(Duration.ofSeconds(90)).pollInSameThread()
                            .pollInterval(Duration.ZERO).until(() -> {
                                c.poll(Duration.ofMillis(300)).forEach(r -> snapshots.add(r.value()));
                                return !snapshots.isEmpty();
                            });
                }
                assertThat(snapshots).as("log:\n%s", Files.readString(log)).singleElement()
                        .satisfies(s -> assertThat(s).contains("\"snapshot_id\":\"acme/s1/h1\""));
                String metrics = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics")).GET()
                        .build(), HttpResponse.BodyHandlers.ofString()).body();
                assertThat(metrics).contains("kafka_stream").doesNotContain(PASSWORD);
            } finally {
                process.destroy();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(output).contains("Stopped.").doesNotContain(PASSWORD);
        }
    }

    private static void awaitReady(HttpClient http, int port, Process process, Path log) throws Exception {
        HttpRequest readyz = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/readyz"))
                .timeout(Duration.ofSeconds(5)).GET().build();
        Awaitility.await("baton run ready").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                .failFast("baton run exited early", () -> assertThat(process.isAlive())
                        .as("log:\n%s", Files.readString(log)).isTrue())
                .untilAsserted(() -> {
                    int status;
                    try {
                        status = http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode();
                    } catch (IOException notYet) {
                        status = -1; // not listening yet
                    }
                    assertThat(status).as("/readyz; log:\n%s", Files.readString(log)).isEqualTo(200);
                });
    }
}
