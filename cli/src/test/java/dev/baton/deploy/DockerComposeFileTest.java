package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** docker-compose.yml cannot run here (no Docker): check its wiring by reading it. */
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
        assertThat(String.join("\n", DockerfileTest.instructions())).contains("/dev/tcp/127.0.0.1/").doesNotContain("curl");
        // records up to the topics' max.message.bytes can be produced
        String script = String.join("\n", texts(services.get("kafka-init").get("command")));
        assertThat(java.util.Arrays.stream(script.split("--create")).skip(1).toList()).hasSize(4).allSatisfy(line ->
                assertThat(line).contains("max.message.bytes=" + dev.baton.service.ops.TopicPlan.MAX_MESSAGE_BYTES));
        assertThat(services.get("baton").get("environment").get("BATON_MAX_REQUEST_SIZE").asText())
                .isEqualTo(Integer.toString(dev.baton.service.ops.TopicPlan.MAX_MESSAGE_BYTES));
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
