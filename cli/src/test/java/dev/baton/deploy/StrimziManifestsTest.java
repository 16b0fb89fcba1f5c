package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import dev.baton.config.BatonConfig;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import io.strimzi.api.kafka.model.user.KafkaUserAuthorizationSimple;
import io.strimzi.api.kafka.model.user.acl.AclRule;
import io.strimzi.api.kafka.model.user.acl.AclRuleGroupResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTopicResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTransactionalIdResource;

/**
 * The production overlay on a Strimzi-run Kafka: the KafkaTopics and the KafkaUser in the Kafka cluster's
 * namespace and of its cluster (where Strimzi's operators look), the user's ACLs exactly what Baton's
 * configuration uses, its authentication what Baton logs in with, and the cluster CA that signs the TLS
 * listener trusted from the mounted Secret.
 */
class StrimziManifestsTest {

    private static final String STRIMZI_GROUP = "kafka.strimzi.io";

    private final RenderedManifests production = KubernetesManifestsTest.renderOnce("overlays/production");

    @Test
    void shouldPutTheStrimziObjectsInTheNamespaceAndClusterTheBootstrapAddressNames() throws Exception {
        List<HasMetadata> strimzi = strimziObjects(production);
        assertThat(strimzi).extracting(HasMetadata::getKind).contains("KafkaTopic", "KafkaUser");
        Set<String> namespaces = new TreeSet<>();
        Set<String> clusters = new TreeSet<>();
        for (HasMetadata o : strimzi) {
            assertThat(o.getMetadata().getNamespace()).as(o.getKind() + " " + o.getMetadata().getName()).isNotBlank();
            namespaces.add(o.getMetadata().getNamespace());
            clusters.add(o.getMetadata().getLabels().get("strimzi.io/cluster"));
        }
        assertThat(namespaces).hasSize(1);
        assertThat(clusters).hasSize(1).doesNotContainNull();
        // Strimzi's bootstrap Service is <cluster>-kafka-bootstrap in the cluster's namespace; 9093 is its TLS listener
        BatonConfig config = KubernetesManifestsTest.batonConfig(production);
        assertThat(config.get("bootstrap.servers"))
                .isEqualTo(clusters.iterator().next() + "-kafka-bootstrap." + namespaces.iterator().next() + ".svc:9093");
        // Baton's own objects carry no namespace: they go where the overlay is applied
        production.objects.stream().filter(o -> !o.getApiVersion().startsWith(STRIMZI_GROUP))
                .forEach(o -> assertThat(o.getMetadata().getNamespace()).as(o.getKind()).isNull());
    }

    @Test
    void shouldKeepTheStrimziNamespaceWhenAnOverlayPinsBatonsNamespaceAsDeployReadmeSays() throws Exception {
        // what deploy/README.md tells a user who wants Baton in its own namespace: a NamespaceTransformer with
        // unsetOnly (a plain `namespace:` would move the KafkaTopics and the KafkaUser too)
        Path dir = Files.createTempDirectory(Path.of("target"), "pinned-namespace");
        Path overlay = dir.toAbsolutePath().relativize(KubernetesManifestsTest.DEPLOY.resolve("overlays/production").toAbsolutePath());
        Files.writeString(dir.resolve("kustomization.yaml"), """
            resources: [%s]
            transformers:
              - |-
                apiVersion: builtin
                kind: NamespaceTransformer
                metadata: {name: baton-namespace, namespace: baton}
                unsetOnly: true
            """.formatted(overlay));
        assertThat(Files.readString(KubernetesManifestsTest.DEPLOY.resolve("README.md"))).contains("unsetOnly: true");
        RenderedManifests pinned = RenderedManifests.render(dir);
        String kafkaNamespace = strimziObjects(production).get(0).getMetadata().getNamespace();
        for (HasMetadata o : pinned.objects) {
            assertThat(o.getMetadata().getNamespace()).as(o.getKind() + " " + o.getMetadata().getName())
                    .isEqualTo(o.getApiVersion().startsWith(STRIMZI_GROUP) ? kafkaNamespace : "baton");
        }
    }

    @Test
    void shouldAllowTheKafkaUserExactlyWhatBatonUses() throws Exception {
        BatonConfig config = KubernetesManifestsTest.batonConfig(production);
        String prefix = config.applicationId() + "-";
        Map<String, Set<String>> expected = new TreeMap<>();
        expected.put("topic " + config.sessionEventsTopic() + " literal", Set.of("Describe", "Read"));
        config.tenantPoliciesTopic().ifPresent(t -> expected.put("topic " + t + " literal", Set.of("Describe", "Read")));
        for (String output : List.of(config.contextSnapshotsTopic(), config.deadLettersTopic())) {
            expected.put("topic " + output + " literal", Set.of("Describe", "DescribeConfigs", "Write"));
        }
        // changelogs (and repartition topics) are named <application.id>-...
        expected.put("topic " + prefix + " prefix", Set.of("Create", "Delete", "Describe", "DescribeConfigs", "Read", "Write"));
        expected.put("group " + config.applicationId() + " literal", Set.of("Describe", "Read"));
        // exactly-once v2: transactional.id = <application.id>-<process id>-<thread index>
        expected.put("transactionalId " + prefix + " prefix", Set.of("Describe", "Write"));

        KafkaUser user = production.one(KafkaUser.class, "baton");
        Map<String, Set<String>> granted = new TreeMap<>();
        for (AclRule rule : ((KafkaUserAuthorizationSimple) user.getSpec().getAuthorization()).getAcls()) {
            String resource = describe(rule);
            assertThat(rule.getType() == null || rule.getType().toValue().equals("allow")).as(resource).isTrue();
            assertThat(rule.getHost() == null || rule.getHost().equals("*")).as(resource).isTrue();
            Set<String> operations = new TreeSet<>();
            rule.getOperations().forEach(op -> operations.add(op.toValue()));
            assertThat(granted.put(resource, operations)).as("one rule per resource: " + resource).isNull();
        }
        assertThat(granted).isEqualTo(expected);
    }

    @Test
    void shouldLogInAsTheKafkaUserOverTlsTrustingTheClusterCa() throws Exception {
        BatonConfig config = KubernetesManifestsTest.batonConfig(production);
        KafkaUser user = production.one(KafkaUser.class, "baton");
        assertThat(user.getSpec().getAuthentication()).isInstanceOf(KafkaUserScramSha512ClientAuthentication.class);
        assertThat(config.get("security.protocol")).isEqualTo("SASL_SSL");
        assertThat(config.get("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
        // sasl.jaas.config comes from the Secret (Strimzi writes the line into the user's Secret)
        Container baton = KubernetesManifestsTest.container(production.one(StatefulSet.class, "baton"));
        assertThat(baton.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("BATON_SASL_JAAS_CONFIG");
            assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("sasl.jaas.config");
        });
        // the cluster CA certificate (Strimzi's <cluster>-cluster-ca-cert, ca.crt) as a PEM file from the mounted Secret
        assertThat(config.get("ssl.truststore.type")).isEqualTo("PEM");
        String truststore = config.get("ssl.truststore.location");
        VolumeMount mount = baton.getVolumeMounts().stream().filter(m -> truststore.startsWith(m.getMountPath() + "/"))
                .findFirst().orElseThrow(() -> new AssertionError(truststore + " is on no volume"));
        Volume volume = production.one(StatefulSet.class, "baton").getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals(mount.getName())).findFirst().orElseThrow();
        assertThat(volume.getSecret()).as("the truststore's volume").isNotNull();
        assertThat(volume.getSecret().getSecretName()).isEqualTo("baton-credentials");
        String key = truststore.substring(mount.getMountPath().length() + 1);
        assertThat(KubernetesManifestsTest.documentedSecretKeys()).as("keys deploy/README.md puts in baton-credentials")
                .contains(key);
        assertThat(Files.readString(KubernetesManifestsTest.DEPLOY.resolve("README.md"))).contains("-cluster-ca-cert");
    }

    @Test
    void shouldDeclareStrimziObjectsOnlyWhereStrimziIsChosen() {
        assertThat(strimziObjects(KubernetesManifestsTest.renderOnce("base"))).isEmpty();
        assertThat(strimziObjects(KubernetesManifestsTest.renderOnce("overlays/dev"))).isEmpty();
        assertThat(production.all(KafkaTopic.class)).hasSize(4);
        assertThat(production.all(KafkaUser.class)).hasSize(1);
    }

    /** "topic NAME literal", "group NAME prefix", ...: the resource of an ACL rule. */
    private static String describe(AclRule rule) {
        if (rule.getResource() instanceof AclRuleTopicResource t) {
            return "topic " + t.getName() + " " + t.getPatternType().toValue();
        }
        if (rule.getResource() instanceof AclRuleGroupResource g) {
            return "group " + g.getName() + " " + g.getPatternType().toValue();
        }
        if (rule.getResource() instanceof AclRuleTransactionalIdResource x) {
            return "transactionalId " + x.getName() + " " + x.getPatternType().toValue();
        }
        return "unexpected " + rule.getResource().getType();
    }

    private static List<HasMetadata> strimziObjects(RenderedManifests rendered) {
        return new ArrayList<>(rendered.objects.stream().filter(o -> o.getApiVersion().startsWith(STRIMZI_GROUP)).toList());
    }
}
