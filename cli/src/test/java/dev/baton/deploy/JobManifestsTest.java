package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.service.command.ServiceCommand;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import picocli.CommandLine;

/**
 * deploy/jobs: the {@code baton topics} Job renders with kustomize into a well-formed typed Job (no unknown fields),
 * runs a command line the image's entry point accepts, with the pods' image, security settings, ConfigMap and
 * Secret, and bounded in time.
 */
class JobManifestsTest {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);

    @Test
    void shouldRenderTheTopicsJobWithTheImagesEntryPointAndThePodsSettings() throws Exception {
        List<JsonNode> documents = kustomize("jobs");
        assertThat(documents).singleElement().satisfies(d -> {
            assertThat(d.path("kind").asText()).isEqualTo("Job");
            assertThat(d.path("apiVersion").asText()).isEqualTo("batch/v1");
        });
        Job job = MAPPER.treeToValue(documents.get(0), Job.class);
        assertThat(RenderedManifests.unknownFields(job)).isEmpty();
        assertThat(job.getMetadata().getName()).isEqualTo("baton-topics");
        assertThat(job.getSpec().getActiveDeadlineSeconds()).isPositive();
        assertThat(job.getSpec().getBackoffLimit()).isPositive();
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        Container topics = pod.getContainers().get(0);

        // what the image's entry point (ServiceCommand) runs: a valid `topics` command line
        CommandLine.ParseResult parsed = new CommandLine(new ServiceCommand()).parseArgs(topics.getArgs().toArray(String[]::new));
        assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("topics");

        // the pods' image, user, security context, configuration and credentials
        StatefulSet statefulSet = RenderedManifests.render(KubernetesManifestsTest.DEPLOY.resolve("overlays/production"))
                .one(StatefulSet.class, "baton");
        PodSpec baton = statefulSet.getSpec().getTemplate().getSpec();
        Container batonContainer = baton.getContainers().get(0);
        assertThat(topics.getImage()).isEqualTo(batonContainer.getImage());
        assertThat(topics.getSecurityContext()).isEqualTo(batonContainer.getSecurityContext());
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(baton.getSecurityContext().getRunAsUser());
        assertThat(pod.getSecurityContext().getSeccompProfile()).isEqualTo(baton.getSecurityContext().getSeccompProfile());
        assertThat(pod.getServiceAccountName()).isEqualTo(baton.getServiceAccountName());
        assertThat(topics.getEnvFrom()).isEqualTo(batonContainer.getEnvFrom());
        assertThat(topics.getEnv().stream().filter(e -> e.getName().equals("BATON_SASL_JAAS_CONFIG")).map(EnvVar::getValueFrom))
                .containsExactlyElementsOf(batonContainer.getEnv().stream()
                        .filter(e -> e.getName().equals("BATON_SASL_JAAS_CONFIG")).map(EnvVar::getValueFrom).toList());
        assertThat(topics.getArgs()).containsSubsequence("--config", batonContainer.getArgs()
                .get(batonContainer.getArgs().indexOf("--config") + 1));
        // no schema registry is needed by `topics`
        assertThat(topics.getEnv()).noneMatch(e -> e.getName().equals("BATON_SCHEMA_REGISTRY_URL"));
    }

    /** {@code kubectl kustomize deploy/DIR} as YAML documents (skipped without kubectl, except under CI=true). */
    private static List<JsonNode> kustomize(String dir) throws Exception {
        Process process;
        try {
            process = new ProcessBuilder("kubectl", "kustomize", KubernetesManifestsTest.DEPLOY.resolve(dir).toString())
                    .start();
        } catch (java.io.IOException noKubectl) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("kubectl is not installed, and CI=true", noKubectl);
            }
            Assumptions.abort("kubectl is not installed");
            throw noKubectl;
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0).as(err).isTrue();
        return RepositoryFiles.yamlDocuments(out);
    }
}
