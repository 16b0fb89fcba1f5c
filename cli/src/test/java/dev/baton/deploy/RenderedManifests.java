package dev.baton.deploy;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;

/**
 * An overlay of deploy/ rendered by {@code kubectl kustomize} (the real kustomize; no Java
 * re-implementation) and every object read into its typed model: fabric8's Kubernetes and
 * Prometheus Operator models, Strimzi's {@code KafkaTopic} and {@code KafkaUser}. The models keep unknown fields in
 * {@code additionalProperties} instead of failing, so {@link #unknownFields} walks every model
 * object and reports each one that holds any: a misspelt or misplaced field fails the test.
 *
 * <p>Without kubectl the tests are skipped, except under {@code CI=true}, where they fail.
 */
final class RenderedManifests {

    /** kind → apiVersion and model class, for every kind deploy/ may contain. */
    static final Map<String, Map.Entry<String, Class<? extends HasMetadata>>> KINDS = Map.ofEntries(
            Map.entry("ServiceAccount", Map.entry("v1", ServiceAccount.class)),
            Map.entry("ConfigMap", Map.entry("v1", ConfigMap.class)),
            Map.entry("Secret", Map.entry("v1", Secret.class)),
            Map.entry("Service", Map.entry("v1", Service.class)),
            Map.entry("StatefulSet", Map.entry("apps/v1", StatefulSet.class)),
            Map.entry("PodDisruptionBudget", Map.entry("policy/v1", PodDisruptionBudget.class)),
            Map.entry("NetworkPolicy", Map.entry("networking.k8s.io/v1", NetworkPolicy.class)),
            Map.entry("ServiceMonitor", Map.entry("monitoring.coreos.com/v1", ServiceMonitor.class)),
            Map.entry("PrometheusRule", Map.entry("monitoring.coreos.com/v1", PrometheusRule.class)),
            Map.entry("KafkaTopic", Map.entry("kafka.strimzi.io/v1beta2", KafkaTopic.class)),
            Map.entry("KafkaUser", Map.entry("kafka.strimzi.io/v1beta2", KafkaUser.class)));

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);

    final String overlay;
    final List<JsonNode> documents;
    final List<HasMetadata> objects;

    private RenderedManifests(String overlay, List<JsonNode> documents, List<HasMetadata> objects) {
        this.overlay = overlay;
        this.documents = documents;
        this.objects = objects;
    }

    static RenderedManifests render(Path dir) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder("kubectl", "kustomize", dir.toString()).redirectErrorStream(false).start();
        } catch (IOException noKubectl) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("kubectl is not installed, and CI=true: the manifests cannot be rendered", noKubectl);
            }
            Assumptions.abort("kubectl is not installed");
            throw noKubectl;
        }
        byte[] out = process.getInputStream().readAllBytes();
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new AssertionError("kubectl kustomize " + dir + " failed: " + err);
        }
        List<JsonNode> documents = RepositoryFiles.yamlDocuments(new String(out, StandardCharsets.UTF_8));
        List<HasMetadata> objects = new ArrayList<>();
        for (JsonNode d : documents) {
            String kind = d.path("kind").asText();
            var model = KINDS.get(kind);
            if (model == null) {
                throw new AssertionError(dir + ": kind " + kind + " has no typed model in this test; add it to KINDS");
            }
            if (!model.getKey().equals(d.path("apiVersion").asText())) {
                throw new AssertionError(dir + ": " + kind + " " + d.at("/metadata/name").asText() + " has apiVersion "
                        + d.path("apiVersion").asText() + ", expected " + model.getKey());
            }
            objects.add(MAPPER.treeToValue(d, model.getValue()));
        }
        return new RenderedManifests(dir.getFileName().toString(), documents, objects);
    }

    <T extends HasMetadata> List<T> all(Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T extends HasMetadata> T one(Class<T> type, String name) {
        return all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(overlay + ": no " + type.getSimpleName() + " " + name));
    }

    <T extends HasMetadata> java.util.Optional<T> find(Class<T> type, String name) {
        return all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst();
    }

    /** "path: {field=value}" for every model object that received a field its model does not know. */
    static List<String> unknownFields(Object root) {
        List<String> found = new ArrayList<>();
        walk(root, root.getClass().getSimpleName(), found, new IdentityHashMap<>());
        return found;
    }

    private static void walk(Object o, String path, List<String> found, IdentityHashMap<Object, Boolean> seen) {
        if (o == null || seen.put(o, Boolean.TRUE) != null) {
            return;
        }
        if (o instanceof Map<?, ?> map) {
            map.forEach((k, v) -> walk(v, path + "[" + k + "]", found, seen));
            return;
        }
        if (o instanceof Collection<?> list) {
            int i = 0;
            for (Object e : list) {
                walk(e, path + "[" + i++ + "]", found, seen);
            }
            return;
        }
        String pkg = o.getClass().getPackageName();
        if (!pkg.startsWith("io.fabric8.") && !pkg.startsWith("io.strimzi.")) {
            return;
        }
        for (Method m : o.getClass().getMethods()) {
            if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class
                    || !(m.getName().startsWith("get") || m.getName().startsWith("is"))) {
                continue;
            }
            Object value;
            try {
                value = m.invoke(o);
            } catch (ReflectiveOperationException | RuntimeException e) {
                continue;
            }
            if (m.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    found.add(path + ": " + extra);
                }
            } else {
                walk(value, path + "." + m.getName().replaceFirst("^(get|is)", ""), found, seen);
            }
        }
    }
}
