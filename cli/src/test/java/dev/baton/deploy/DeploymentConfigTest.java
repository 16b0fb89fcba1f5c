package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.config.BatonConfig;

/** The settings the deployment files give Baton are settings Baton accepts, with the intended values. */
class DeploymentConfigTest {

    private final Path root = RepositoryFiles.root();

    @TempDir
    Path dir;

    @Test
    void shouldAcceptTheDockerComposeEnvironment() {
        JsonNode env = RepositoryFiles.yaml(root.resolve("docker-compose.yml")).at("/services/baton/environment");
        Map<String, String> variables = new HashMap<>();
        env.properties().forEach(e -> variables.put(e.getKey(), e.getValue().asText()));

        BatonConfig config = BatonConfig.builder().environment(variables).build();

        assertThat(config.get("bootstrap.servers")).isEqualTo("kafka:9092");
        assertThat(config.schemaRegistryUrl()).hasValue("http://schema-registry:8080/apis/ccompat/v7");
        assertThat(config.get("application.server")).isEqualTo("baton:8080");
        assertThat(config.get("state.dir")).isEqualTo("/var/lib/baton/state");
        assertThat(config.httpPort()).isEqualTo(8080);
    }

    @Test
    void shouldAcceptTheKubernetesConfigMapAndEnvironment() throws IOException {
        JsonNode configMap = RepositoryFiles.yamlDocuments(Files.readString(root.resolve("deploy/base/configmap.yaml"))).get(0);
        Path properties = dir.resolve("baton.properties");
        Files.writeString(properties, configMap.at("/data/baton.properties").asText());
        Map<String, String> variables = new HashMap<>();
        configMap.get("data").properties().forEach(e -> {
            if (e.getKey().startsWith("BATON_")) {
                variables.put(e.getKey(), e.getValue().asText());
            }
        });
        variables.put("BATON_APPLICATION_SERVER", "baton-0.baton-headless.ns.svc:8080");
        // from the Secret baton-credentials (deploy/README.md)
        variables.put("BATON_SCHEMA_REGISTRY_URL", "https://user:secret@registry.example:8081");

        BatonConfig config = BatonConfig.builder().file(properties).environment(variables).build();

        assertThat(config.get("processing.guarantee")).isEqualTo("exactly_once_v2");
        assertThat(config.get("state.dir")).isEqualTo("/var/lib/baton/state");
        assertThat(config.get("num.standby.replicas")).isEqualTo("1");
        assertThat(config.format()).isEqualTo(BatonConfig.Format.AVRO);
        assertThat(config.origin("bootstrap.servers")).contains("BATON_BOOTSTRAP_SERVERS");
    }
}
