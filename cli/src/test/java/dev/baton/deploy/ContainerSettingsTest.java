package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.config.BatonConfig;

/**
 * What the docs say the image and deploy/ set, checked against the Dockerfile and the rendered overlays: the settings
 * Baton ends up with in a pod (the image's ENV, under the pod's environment, with the ConfigMap's baton.properties
 * given by {@code --config}), read by Baton's own {@link BatonConfig}. ProductionPodIT runs the same for real.
 */
class ContainerSettingsTest {

    private static final Path ROOT = RepositoryFiles.root();

    @TempDir
    Path dir;

    /** Baton's configuration in the first pod of {@code overlay}: image ENV, pod env, the --config file. */
    private BatonConfig podConfig(String overlay) throws Exception {
        RenderedManifests rendered = RenderedManifests.render(ROOT.resolve("deploy/overlays/" + overlay));
        PodAsContainer pod = new PodAsContainer(rendered.documents, "baton", "baton", Map.of("baton-credentials",
                Map.of("schema-registry-url", "http://registry.example:8081", "http-tokens", "")));
        Map<String, String> env = new HashMap<>(DockerfileTest.imageEnvironment());
        env.putAll(pod.environment(Map.of()));
        List<String> args = pod.containerArgs();
        assertThat(args).contains("--config");
        String config = args.get(args.indexOf("--config") + 1);
        Path file = dir.resolve("baton.properties");
        Files.writeString(file, configMapFile(rendered, pod, config));
        return BatonConfig.builder().file(file).environment(env).build();
    }

    /** The text the pod sees at {@code path}, from the ConfigMap volume mounted there. */
    private static String configMapFile(RenderedManifests rendered, PodAsContainer pod, String path) {
        JsonNode podSpec = rendered.documents.stream().filter(d -> d.path("kind").asText().equals("StatefulSet"))
                .findFirst().orElseThrow().at("/spec/template/spec");
        for (JsonNode mount : pod.container().path("volumeMounts")) {
            String prefix = mount.path("mountPath").asText() + "/";
            if (!path.startsWith(prefix)) {
                continue;
            }
            for (JsonNode volume : podSpec.path("volumes")) {
                if (volume.path("name").asText().equals(mount.path("name").asText()) && volume.has("configMap")) {
                    String key = path.substring(prefix.length());
                    for (JsonNode item : volume.at("/configMap/items")) {
                        if (item.path("path").asText().equals(key)) {
                            key = item.path("key").asText();
                        }
                    }
                    return pod.object("ConfigMap", volume.at("/configMap/name").asText()).at("/data/" + key).asText();
                }
            }
        }
        throw new AssertionError(path + " is on no ConfigMap volume");
    }

    @ParameterizedTest
    @ValueSource(strings = {"production", "dev"})
    void shouldListenOnEveryInterfaceInThePod(String overlay) throws Exception {
        assertThat(podConfig(overlay).httpBindAddress()).isEqualTo("0.0.0.0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"production", "dev"})
    void shouldReadSessionTokensFromTheSecretsHttpTokensKey(String overlay) throws Exception {
        Path tokens = podConfig(overlay).httpTokensFile().orElseThrow(() ->
                new AssertionError(overlay + ": no baton.http.tokens-file, so every /sessions query gets 401"));
        RenderedManifests rendered = RenderedManifests.render(ROOT.resolve("deploy/overlays/" + overlay));
        JsonNode statefulSet = rendered.documents.stream().filter(d -> d.path("kind").asText().equals("StatefulSet"))
                .findFirst().orElseThrow();
        String secretVolume = null;
        for (JsonNode v : statefulSet.at("/spec/template/spec/volumes")) {
            if (v.at("/secret/secretName").asText().equals("baton-credentials") && !v.at("/secret").has("items")) {
                secretVolume = v.path("name").asText();
            }
        }
        assertThat(secretVolume).as("the Secret baton-credentials is mounted as files").isNotNull();
        String mountPath = null;
        for (JsonNode m : statefulSet.at("/spec/template/spec/containers/0/volumeMounts")) {
            if (m.path("name").asText().equals(secretVolume)) {
                mountPath = m.path("mountPath").asText();
            }
        }
        assertThat(tokens).as("the Secret's key http-tokens, where the pod mounts it").isEqualTo(Path.of(mountPath, "http-tokens"));
        if (overlay.equals("dev")) {
            // the overlay makes the Secret itself: the key must be in it, or the pod does not start
            assertThat(rendered.documents.stream().filter(d -> d.path("kind").asText().equals("Secret")).findFirst()
                    .orElseThrow().at("/data").has("http-tokens")).isTrue();
        } else {
            assertThat(Files.readString(ROOT.resolve("deploy/README.md"))).contains("--from-file=http-tokens=");
        }
    }

    @Test
    void shouldSayInTheDocsWhatTheImageAndDeploySet() throws IOException {
        String variable = "BATON_HTTP_BIND_ADDRESS";
        assertThat(DockerfileTest.imageEnvironment()).containsEntry(variable, "0.0.0.0");
        String row = Files.readString(ROOT.resolve("docs/configuration.md")).lines()
                .filter(l -> l.contains("`" + variable + "`")).findFirst().orElseThrow();
        // the default column is Baton's own default; the text names what the image and deploy/ set
        assertThat(row).contains("| `" + BatonConfig.builder().environment(Map.of("BATON_FORMAT", "json")).build().httpBindAddress() + "` |")
                .contains("0.0.0.0").contains("image").contains("deploy/");
    }

    @ParameterizedTest
    @ValueSource(strings = {"production", "dev"})
    void shouldHealthCheckWhatAndWhereTheLivenessProbeAsks(String overlay) throws Exception {
        RenderedManifests rendered = RenderedManifests.render(ROOT.resolve("deploy/overlays/" + overlay));
        PodAsContainer pod = new PodAsContainer(rendered.documents, "baton", "baton", Map.of("baton-credentials",
                Map.of("schema-registry-url", "http://registry.example:8081", "http-tokens", "")));
        JsonNode liveness = pod.container().at("/livenessProbe/httpGet");
        String healthcheck = DockerfileTest.instructions().stream().filter(i -> i.startsWith("HEALTHCHECK ")).findFirst()
                .orElseThrow();
        assertThat(healthcheck).contains("GET " + liveness.path("path").asText() + " ")
                .contains("/dev/tcp/$HOSTNAME/${BATON_HTTP_PORT")
                .doesNotContain("127.0.0.1").doesNotContain("localhost/");
        // the port the check dials (the image's BATON_HTTP_PORT, unless the pod sets it) is the probe's port
        Map<String, String> env = new HashMap<>(DockerfileTest.imageEnvironment());
        env.putAll(pod.environment(Map.of()));
        List<String> args = pod.containerArgs();
        int served = args.contains("--http-port") ? Integer.parseInt(args.get(args.indexOf("--http-port") + 1))
                : Integer.parseInt(env.get("BATON_HTTP_PORT"));
        assertThat(Integer.parseInt(env.get("BATON_HTTP_PORT"))).as("the port the health check dials")
                .isEqualTo(served).isEqualTo(pod.containerPort(liveness.path("port")));
    }
}
