package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.strimzi.api.kafka.model.topic.KafkaTopic;

/**
 * What the docs say deploy/ sets is what {@code kubectl kustomize} renders: the table "What deploy/ sets" of
 * deploy/README.md cell by cell for base, dev and production, and every setting the docs quote about deploy/ — a
 * {@code key=value} of Baton or Kafka, a {@code VARIABLE=value} of the container, a {@code field: value} of the
 * manifests — in deploy/README.md (about the production overlay), and in the paragraphs of docs/operations.md and
 * docs/configuration.md that name {@code deploy/} (about every overlay).
 */
class DeployDocumentationTest {

    private static final Path ROOT = RepositoryFiles.root();
    private static final List<String> KUSTOMIZATIONS = List.of("base", "overlays/dev", "overlays/production");
    private static final Pattern CODE = Pattern.compile("`([^`\n]+)`");
    /** A Kafka or Baton setting: dotted lower-case names ({@code job="baton"} in PromQL is not one). */
    private static final Pattern SETTING = Pattern.compile("([a-z][a-z0-9-]*(?:\\.[a-z0-9-]+)+)=(\\S+)");
    private static final Pattern VARIABLE = Pattern.compile("([A-Z][A-Z0-9_]*)=(\\S+)");
    private static final Pattern FIELD = Pattern.compile("([A-Za-z][A-Za-z0-9_./-]*): (\\S+)");
    /** Settings of the topics (the KafkaTopics), not of Baton. */
    private static final List<String> TOPIC_SETTINGS = List.of("max.message.bytes", "cleanup.policy", "min.insync.replicas");

    @Test
    void shouldSetWhatTheTableOfDeployReadmeSays() throws Exception {
        List<String> rows = section(Files.readString(KubernetesManifestsTest.DEPLOY.resolve("README.md")), "## What deploy/ sets")
                .lines().filter(l -> l.startsWith("| ")).toList();
        List<String> header = cells(rows.get(0));
        assertThat(header.subList(1, header.size())).containsExactlyElementsOf(KUSTOMIZATIONS);
        List<String> wrong = new ArrayList<>();
        List<String> settings = new ArrayList<>();
        for (String row : rows.subList(1, rows.size())) {
            List<String> cells = cells(row);
            if (cells.get(0).matches("-+")) {
                continue;
            }
            String setting = cells.get(0);
            settings.add(setting);
            for (int i = 0; i < KUSTOMIZATIONS.size(); i++) {
                String expected = cells.get(i + 1).equals("—") ? null : cells.get(i + 1);
                String actual = actual(KubernetesManifestsTest.renderOnce(KUSTOMIZATIONS.get(i)), setting);
                if (expected == null ? actual != null : !expected.equals(actual)) {
                    wrong.add(KUSTOMIZATIONS.get(i) + ": " + setting + " is " + actual + ", the table says " + expected);
                }
            }
        }
        assertThat(settings).as("what the table covers").contains("/spec/replicas", "baton.http.bind-address",
                "baton.http.tokens-file", "num.standby.replicas", "replication.factor", "security.protocol",
                "/spec/template/spec/containers/0/resources/requests/cpu",
                "/spec/template/spec/containers/0/resources/limits/memory");
        assertThat(wrong).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"deploy/README.md", "docs/operations.md", "docs/configuration.md"})
    void shouldSetWhatTheDocsQuoteAboutDeploy(String document) throws Exception {
        String text = Files.readString(ROOT.resolve(document)).replaceAll("(?ms)^\\s*```.*?^\\s*```", "");
        boolean wholeFile = document.startsWith("deploy/");
        // deploy/README.md describes what a platform deploys, the production overlay (the table has the others)
        List<String> kustomizations = wholeFile ? List.of("overlays/production") : KUSTOMIZATIONS;
        List<String> wrong = new ArrayList<>();
        int claims = 0;
        for (String block : text.split("\n\\s*\n|\n(?=\\|)")) {
            if (!wholeFile && !block.contains("deploy/")) {
                continue;
            }
            Matcher code = CODE.matcher(block);
            while (code.find()) {
                String quoted = code.group(1).trim();
                if (!isClaim(quoted)) {
                    continue;
                }
                claims++;
                for (String k : kustomizations) {
                    String problem = check(KubernetesManifestsTest.renderOnce(k), quoted);
                    if (problem != null && !problem.isEmpty()) {
                        wrong.add(document + ", " + k + ": `" + quoted + "` " + problem);
                    }
                }
            }
        }
        // configuration.md's one statement about deploy/ is in a table row: shouldBindEveryOverlayWhere...
        assertThat(claims).as("settings quoted about deploy/ in " + document)
                .isGreaterThanOrEqualTo(document.equals("docs/configuration.md") ? 0 : 5);
        assertThat(wrong).isEmpty();
    }

    @Test
    void shouldBindEveryOverlayWhereConfigurationMdSaysDeploySetsIt() throws Exception {
        String row = Files.readString(ROOT.resolve("docs/configuration.md")).lines()
                .filter(l -> l.startsWith("| `baton.http.bind-address`")).findFirst().orElseThrow();
        assertThat(row).contains("0.0.0.0").contains("deploy/");
        for (String k : KUSTOMIZATIONS) {
            assertThat(KubernetesManifestsTest.batonConfig(KubernetesManifestsTest.renderOnce(k)).get("baton.http.bind-address"))
                    .as(k).isEqualTo("0.0.0.0");
        }
    }

    @Test
    void shouldReadTheTokensFromTheMountedSecret() throws Exception {
        for (String k : KUSTOMIZATIONS) {
            RenderedManifests rendered = KubernetesManifestsTest.renderOnce(k);
            String file = KubernetesManifestsTest.batonConfig(rendered).get("baton.http.tokens-file");
            Container baton = KubernetesManifestsTest.container(rendered.one(StatefulSet.class, "baton"));
            var mount = baton.getVolumeMounts().stream().filter(m -> file.startsWith(m.getMountPath() + "/")).findFirst()
                    .orElseThrow(() -> new AssertionError(k + ": " + file + " is on no volume"));
            var volume = rendered.one(StatefulSet.class, "baton").getSpec().getTemplate().getSpec().getVolumes().stream()
                    .filter(v -> v.getName().equals(mount.getName())).findFirst().orElseThrow();
            assertThat(volume.getSecret()).as(k + ": the tokens file's volume").isNotNull();
            String key = file.substring(mount.getMountPath().length() + 1);
            assertThat(KubernetesManifestsTest.documentedSecretKeys()).as(k).contains(key);
            // where the overlay generates the Secret itself, the key is in it (else the file would be missing)
            rendered.find(io.fabric8.kubernetes.api.model.Secret.class, volume.getSecret().getSecretName())
                    .ifPresent(secret -> assertThat(secret.getData()).as(k).containsKey(key));
        }
    }

    @Test
    void shouldCatchAQuotedSettingTheManifestsDoNotHave() {
        RenderedManifests production = KubernetesManifestsTest.renderOnce("overlays/production");
        assertThat(check(production, "num.standby.replicas=1")).isEmpty();
        assertThat(check(production, "num.standby.replicas=2")).isNotEmpty();
        assertThat(check(production, "baton.http.bind-address=127.0.0.1")).isNotEmpty();
        assertThat(check(production, "MALLOC_ARENA_MAX=2")).isEmpty();
        assertThat(check(production, "MALLOC_ARENA_MAX=4")).isNotEmpty();
        assertThat(check(production, "timeoutSeconds: 2")).isEmpty();
        assertThat(check(production, "timeoutSeconds: 7")).isNotEmpty();
        assertThat(check(production, "max.message.bytes=8388608")).isEmpty();
        assertThat(check(production, "rate(baton_dead_letters_total[5m])")).isNull();
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /** A setting's value as the pod gets it, or a field of the rendered StatefulSet ({@code /spec/...}). */
    private static String actual(RenderedManifests rendered, String setting) throws IOException {
        if (setting.startsWith("/")) {
            JsonNode statefulSet = rendered.documents.stream().filter(d -> d.path("kind").asText().equals("StatefulSet"))
                    .findFirst().orElseThrow();
            JsonNode value = statefulSet.at(setting);
            return value.isMissingNode() || value.isNull() ? null : value.asText();
        }
        return KubernetesManifestsTest.batonConfig(rendered).get(setting);
    }

    private static boolean isClaim(String quoted) {
        return SETTING.matcher(quoted).matches() || VARIABLE.matcher(quoted).matches()
                || (FIELD.matcher(quoted).matches() && !quoted.contains("<"));
    }

    /**
     * null: not a quoted setting; "": it holds in {@code rendered}; otherwise what is wrong.
     */
    static String check(RenderedManifests rendered, String quoted) {
        try {
            Matcher setting = SETTING.matcher(quoted);
            if (setting.matches()) {
                String key = setting.group(1);
                String value = setting.group(2);
                if (TOPIC_SETTINGS.contains(key)) {
                    List<String> topics = new ArrayList<>();
                    for (KafkaTopic t : rendered.all(KafkaTopic.class)) {
                        if (!value.equals(String.valueOf(t.getSpec().getConfig().get(key)))) {
                            topics.add(t.getSpec().getTopicName());
                        }
                    }
                    return topics.isEmpty() ? "" : "does not hold for the topics " + topics;
                }
                String actual = KubernetesManifestsTest.batonConfig(rendered).get(key);
                return value.equals(actual) ? "" : "is " + actual + " in the rendered configuration";
            }
            Matcher variable = VARIABLE.matcher(quoted);
            if (variable.matches()) {
                String actual = environment(rendered).get(variable.group(1));
                return variable.group(2).equals(actual) ? "" : "is " + actual + " in the container's environment";
            }
            Matcher field = FIELD.matcher(quoted);
            if (field.matches() && !quoted.contains("<")) {
                String value = field.group(2).replaceAll("^\"(.*)\"$", "$1");
                for (JsonNode document : rendered.documents) {
                    if (hasField(document, field.group(1), value)) {
                        return "";
                    }
                }
                return "is in no rendered object";
            }
            return null;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The container's variables: the ConfigMap's (envFrom), then its own with a literal value. */
    private static Map<String, String> environment(RenderedManifests rendered) {
        Container baton = KubernetesManifestsTest.container(rendered.one(StatefulSet.class, "baton"));
        Map<String, String> env = new java.util.HashMap<>();
        for (var from : baton.getEnvFrom()) {
            rendered.one(ConfigMap.class, from.getConfigMapRef().getName()).getData().forEach(env::put);
        }
        for (EnvVar e : baton.getEnv()) {
            if (e.getValue() != null) {
                env.put(e.getName(), e.getValue());
            }
        }
        return env;
    }

    private static boolean hasField(JsonNode node, String name, String value) {
        if (node.isObject()) {
            JsonNode v = node.get(name);
            if (v != null && v.isValueNode() && v.asText().equals(value)) {
                return true;
            }
        }
        for (Iterator<JsonNode> children = node.elements(); children.hasNext();) {
            if (hasField(children.next(), name, value)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> cells(String row) {
        List<String> cells = new ArrayList<>();
        for (String cell : row.substring(1, row.lastIndexOf('|')).split("\\|")) {
            cells.add(cell.trim().replaceAll("^`(.*)`$", "$1"));
        }
        return cells;
    }

    /** The text from a heading to the next heading of the same or a higher level. */
    private static String section(String markdown, String heading) {
        int start = markdown.indexOf("\n" + heading + "\n");
        assertThat(start).as(heading).isNotNegative();
        int end = markdown.indexOf("\n## ", start + heading.length() + 2);
        return markdown.substring(start, end < 0 ? markdown.length() : end);
    }
}
