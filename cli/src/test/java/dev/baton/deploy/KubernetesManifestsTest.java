package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** deploy/: the manifests fit together (and render with kustomize when kubectl is installed). */
class KubernetesManifestsTest {

  private final Path deploy = RepositoryFiles.root().resolve("deploy");

  private List<JsonNode> documents() throws IOException {
    try (Stream<Path> files = Files.list(deploy)) {
      return files.filter(f -> f.toString().endsWith(".yaml") && !f.endsWith("kustomization.yaml"))
          .sorted()
          .flatMap(f -> {
            try {
              return RepositoryFiles.yamlDocuments(Files.readString(f)).stream();
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          })
          .toList();
    }
  }

  private JsonNode find(String kind, String name) throws IOException {
    return documents().stream()
        .filter(d -> d.path("kind").asText().equals(kind) && d.path("metadata").path("name").asText().equals(name))
        .findFirst().orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in deploy/"));
  }

  @Test
  void shouldKeepTheStateDirectoryOnAPersistentVolume() throws IOException {
    JsonNode statefulSet = find("StatefulSet", "baton");
    JsonNode container = statefulSet.at("/spec/template/spec/containers/0");
    String stateMount = null;
    for (JsonNode mount : container.get("volumeMounts")) {
      if (mount.get("name").asText().equals("state")) {
        stateMount = mount.get("mountPath").asText();
      }
    }
    assertThat(stateMount).as("state volume mount").isNotNull();
    assertThat(statefulSet.at("/spec/volumeClaimTemplates/0/metadata/name").asText()).isEqualTo("state");

    Properties properties = new Properties();
    properties.load(new java.io.StringReader(find("ConfigMap", "baton-config").at("/data/baton.properties").asText()));
    assertThat(properties.getProperty("state.dir")).startsWith(stateMount + "/");
    assertThat(properties.getProperty("processing.guarantee")).isEqualTo("exactly_once_v2");
  }

  @Test
  void shouldProbeTheHealthEndpointsOnTheServedPort() throws IOException {
    JsonNode container = find("StatefulSet", "baton").at("/spec/template/spec/containers/0");
    assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
    assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    List<String> args = RepositoryFiles.YAML.convertValue(container.get("args"),
        RepositoryFiles.YAML.getTypeFactory().constructCollectionType(List.class, String.class));
    assertThat(args).startsWith("run");
    String port = args.get(args.indexOf("--http-port") + 1);
    assertThat(container.at("/ports/0/containerPort").asText()).isEqualTo(port);
  }

  @Test
  void shouldGiveEveryPodAStableNameForInteractiveQueries() throws IOException {
    JsonNode statefulSet = find("StatefulSet", "baton");
    String serviceName = statefulSet.at("/spec/serviceName").asText();
    assertThat(find("Service", serviceName).at("/spec/clusterIP").asText()).isEqualTo("None");
    JsonNode env = statefulSet.at("/spec/template/spec/containers/0/env");
    assertThat(env.toString()).contains("BATON_APPLICATION_SERVER").contains("." + serviceName + ".");
  }

  @Test
  void shouldRenderWithKustomize() throws Exception {
    Process process;
    try {
      process = new ProcessBuilder("kubectl", "kustomize", deploy.toString()).redirectErrorStream(true).start();
    } catch (IOException noKubectl) {
      Assumptions.abort("kubectl is not installed");
      return;
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    List<JsonNode> rendered = RepositoryFiles.yamlDocuments(output);
    assertThat(rendered).extracting(d -> d.get("kind").asText())
        .contains("ConfigMap", "Service", "StatefulSet", "PodDisruptionBudget");
    JsonNode statefulSet = rendered.stream().filter(d -> d.get("kind").asText().equals("StatefulSet")).findFirst().orElseThrow();
    JsonNode selector = statefulSet.at("/spec/selector/matchLabels");
    JsonNode podLabels = statefulSet.at("/spec/template/metadata/labels");
    selector.fields().forEachRemaining(e -> assertThat(podLabels.get(e.getKey())).isEqualTo(e.getValue()));
  }
}
