package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.baton.service.ops.TopicPlan;
import dev.baton.config.BatonConfig;
import io.strimzi.api.kafka.model.topic.KafkaTopic;

/** Strimzi's KafkaTopics in deploy/ are the topics {@code baton topics} creates with its defaults. */
class DeployedTopicsTest {

    @Test
    void shouldDeclareTheTopicsBatonTopicsCreates() throws Exception {
        RenderedManifests production = RenderedManifests.render(KubernetesManifestsTest.DEPLOY.resolve("overlays/production"));
        BatonConfig config = KubernetesManifestsTest.batonConfig(production);
        Map<String, TopicPlan.Topic> planned = new TreeMap<>();
        TopicPlan.of(config, TopicPlan.DEFAULT_PARTITIONS, TopicPlan.DEFAULT_DEAD_LETTER_PARTITIONS,
                TopicPlan.DEFAULT_REPLICATION_FACTOR).forEach(t -> planned.put(t.name(), t));
        Map<String, TopicPlan.Topic> declared = new TreeMap<>();
        for (KafkaTopic topic : production.all(KafkaTopic.class)) {
            Map<String, String> configs = new TreeMap<>();
            topic.getSpec().getConfig().forEach((k, v) -> configs.put(k, String.valueOf(v)));
            declared.put(topic.getSpec().getTopicName(), new TopicPlan.Topic(topic.getSpec().getTopicName(),
                    topic.getSpec().getPartitions(), topic.getSpec().getReplicas().shortValue(), configs));
            assertThat(topic.getMetadata().getLabels()).containsKey("strimzi.io/cluster");
        }
        assertThat(declared.keySet()).containsExactlyElementsOf(planned.keySet());
        planned.forEach((name, t) -> assertThat(declared.get(name))
                .isEqualTo(new TopicPlan.Topic(name, t.partitions(), t.replicationFactor(), new TreeMap<>(t.configs()))));
        assertThat(declared.get("baton.tenant-policies").configs()).containsEntry("cleanup.policy", "compact");
        assertThat(List.copyOf(declared.values())).allSatisfy(t ->
                assertThat(t.configs()).containsEntry("max.message.bytes", Integer.toString(TopicPlan.MAX_MESSAGE_BYTES)));
    }
}
