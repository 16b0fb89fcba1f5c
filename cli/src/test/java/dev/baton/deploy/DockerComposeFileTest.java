package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * docker-compose.yml cannot run here (no Docker engine, and its Kafka and registry images come from Docker Hub, which
 * is not reachable): its wiring is checked by reading it, and Compose 1.29 (Debian's docker-compose, where installed;
 * .ci/run installs it) validates it with {@code docker-compose config}.
 */
class DockerComposeFileTest {

    private final Path root = RepositoryFiles.root();
    private final JsonNode compose = RepositoryFiles.yaml(root.resolve("docker-compose.yml"));
    private final JsonNode services = compose.get("services");

    @Test
    void shouldRunKafkaInKraftModeWithSingleReplicaInternalTopics() {
        JsonNode env = services.get("kafka").get("environment");
        assertThat(env.get("KAFKA_PROCESS_ROLES").asText()).isEqualTo("broker,controller");
        assertThat(env.get("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR").asText()).isEqualTo("1");
        assertThat(env.get("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR").asText()).isEqualTo("1");
        assertThat(env.get("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR").asText()).isEqualTo("1");
        assertThat(env.get("KAFKA_ADVERTISED_LISTENERS").asText()).contains("kafka:9092");
    }

    @Test
    void shouldCreateTheContractTopicsBeforeBatonStarts() {
        String script = String.join("\n", texts(services.get("kafka-init").get("command")));
        for (String topic : List.of("baton.session-events", "baton.context-snapshots", "baton.dead-letters",
                "baton.tenant-policies")) {
            assertThat(script).contains("--topic " + topic + " ");
        }
        assertThat(script).contains("cleanup.policy=compact");
        JsonNode dependsOn = services.get("baton").get("depends_on");
        assertThat(dependsOn.get("kafka-init").get("condition").asText()).isEqualTo("service_completed_successfully");
        assertThat(dependsOn.get("schema-registry").get("condition").asText()).isEqualTo("service_healthy");
    }

    @Test
    void shouldPointBatonAtKafkaAndTheRegistrysConfluentApi() {
        JsonNode baton = services.get("baton");
        JsonNode env = baton.get("environment");
        assertThat(env.get("BATON_BOOTSTRAP_SERVERS").asText()).isEqualTo("kafka:9092");
        String registryUrl = env.get("BATON_SCHEMA_REGISTRY_URL").asText();
        assertThat(registryUrl).startsWith("http://schema-registry:").endsWith("/apis/ccompat/v7");
        String registryPort = registryUrl.replaceAll(".*schema-registry:(\\d+)/.*", "$1");
        assertThat(texts(services.get("schema-registry").get("ports"))).anyMatch(p -> p.endsWith(":" + registryPort));
        assertThat(texts(baton.get("command"))).startsWith("run").contains("--http-port", "8080");
        assertThat(baton.get("healthcheck").get("test").toString()).contains("/readyz");
        assertThat(baton.get("build").asText()).isEqualTo(".");
        assertThat(compose.get("volumes").has("baton-state")).isTrue();
        String stateMount = texts(baton.get("volumes")).get(0).replaceFirst("^baton-state:", "");
        assertThat(env.get("BATON_STATE_DIR").asText()).startsWith(stateMount + "/");
        // a single broker cannot hold the default three replicas of the changelogs
        assertThat(env.get("BATON_REPLICATION_FACTOR").asText()).isEqualTo("1");
    }

    @Test
    void shouldCheckHealthTheWayTheImageCan() throws IOException {
        // the image has bash but no curl (Dockerfile): the health check must not need curl
        String check = services.get("baton").get("healthcheck").get("test").toString();
        assertThat(check).contains("/dev/tcp/127.0.0.1/8080").doesNotContain("curl");
        assertThat(String.join("\n", DockerfileTest.instructions())).contains("/dev/tcp/").doesNotContain("curl");
        // records up to the topics' max.message.bytes can be produced
        String script = String.join("\n", texts(services.get("kafka-init").get("command")));
        assertThat(java.util.Arrays.stream(script.split("--create")).skip(1).toList()).hasSize(4).allSatisfy(line ->
                assertThat(line).contains("max.message.bytes=" + dev.baton.service.ops.TopicPlan.MAX_MESSAGE_BYTES));
        assertThat(services.get("baton").get("environment").get("BATON_MAX_REQUEST_SIZE").asText())
                .isEqualTo(Integer.toString(dev.baton.service.ops.TopicPlan.MAX_MESSAGE_BYTES));
    }

    @Test
    void shouldUseOnlyTopLevelKeysThatComposeV1AndV2BothAccept() {
        // Compose v2's `name:` is refused by Debian's docker-compose 1.29 ("'name' does not match any of the regexes")
        List<String> keys = new ArrayList<>();
        compose.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).allMatch(k -> List.of("services", "volumes", "networks", "configs", "secrets").contains(k)
                || k.startsWith("x-"), "a key of both file formats");
    }

    @Test
    void shouldBeAcceptedByDockerCompose1() throws Exception {
        Process config;
        try {
            config = new ProcessBuilder("docker-compose", "--file", root.resolve("docker-compose.yml").toString(), "config",
                    "--quiet").redirectErrorStream(true).start();
        } catch (IOException notInstalled) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError("docker-compose is not installed, and CI=true (apt-get install docker-compose)",
                        notInstalled);
            }
            org.junit.jupiter.api.Assumptions.abort("docker-compose is not installed (apt-get install docker-compose)");
            return;
        }
        String output = new String(config.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(config.waitFor(1, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
        assertThat(config.exitValue()).as("docker-compose config:\n%s", output).isZero();
    }

    private static List<String> texts(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node == null) {
            return out;
        }
        if (node.isArray()) {
            node.forEach(n -> out.add(n.asText()));
        } else {
            out.add(node.asText());
        }
        return out;
    }
}
