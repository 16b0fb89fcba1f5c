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
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
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
    private static final String ADMIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"plain-admin\" password=\"plain-admin-secret\";";

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("try") // the test kit's close() declares Exception (hence InterruptedException): not ours
    void shouldAuthenticateWithScramFromTheEnvironmentAndNeverPrintTheSecret() throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1)
                .setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .setBootstrapMetadataVersion(MetadataVersion.LATEST_PRODUCTION).build();
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes).setDeleteOnClose(true);
        for (String k : List.of("offsets.topic.replication.factor", "transaction.state.log.replication.factor",
                "transaction.state.log.min.isr", "default.replication.factor", "min.insync.replicas",
                "share.coordinator.state.topic.replication.factor", "share.coordinator.state.topic.min.isr")) {
            builder.setConfigProp(k, "1");
        }
        builder.setConfigProp("group.initial.rebalance.delay.ms", "0");
        // authentication is the subject, not authorization: the kit's authorizer lets these principals do anything
        builder.setConfigProp("super.users", "User:ANONYMOUS;User:plain-admin;User:baton");
        builder.setConfigProp("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512");
        builder.setConfigProp("listener.name.external.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        try (KafkaClusterTestKit cluster = builder.build()) {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            String bootstrap = cluster.bootstrapServers();
            Properties admin = plainAdmin(bootstrap);
            try (Admin a = Admin.create(admin)) {
                a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("baton",
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), PASSWORD))).all().get(30, TimeUnit.SECONDS);
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
                Properties producer = plainAdmin(bootstrap);
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
                Properties consumer = plainAdmin(bootstrap);
                consumer.put("group.id", "sasl-reader");
                consumer.put("auto.offset.reset", "earliest");
                consumer.put("isolation.level", "read_committed");
                consumer.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
                consumer.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
                List<String> snapshots = new ArrayList<>();
                try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumer)) {
                    c.subscribe(List.of("sasl.context-snapshots"));
                    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                    while (snapshots.isEmpty() && System.nanoTime() < deadline) {
                        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(300))) {
                            snapshots.add(r.value());
                        }
                    }
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

    private static Properties plainAdmin(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", ADMIN_JAAS);
        return p;
    }

    private static void awaitReady(HttpClient http, int port, Process process, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(process.isAlive()).as("baton run exited early:\n%s", Files.readString(log)).isTrue();
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/readyz"))
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new AssertionError("not ready in time:\n" + Files.readString(log));
    }
}
