package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.baton.config.BatonConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class MetricFiltersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private void lag(String topic) {
        Gauge.builder("kafka.consumer.fetch.manager.records.lag", () -> 1).tag("topic", topic).tag("partition", "0")
                .register(registry);
    }

    @Test
    void shouldDropTheUnderscoreCopyOfBatonsTopicsOnly() {
        BatonConfig config = BatonConfig.of(Map.of("baton.format", "json", "baton.topic.session-events", "prod.events"));
        registry.config().meterFilter(MetricFilters.withoutLegacyTopicTags(config));
        lag("prod.events");
        lag("prod_events");
        lag("baton.tenant-policies");
        lag("baton_tenant-policies");
        lag("some_other_topic");
        assertThat(registry.find("kafka.consumer.fetch.manager.records.lag").gauges())
                .extracting(g -> g.getId().getTag("topic"))
                .containsExactlyInAnyOrder("prod.events", "baton.tenant-policies", "some_other_topic");
    }

    @Test
    void shouldDropTheProcessIdTag() {
        registry.config().meterFilter(MetricFilters.withoutProcessId());
        Gauge.builder("kafka.stream.client.state", () -> 2).tag("client-id", "baton-0")
                .tag("process-id", "8bfa43e3-99f8-4aa2-ad2b-9811921acb07").register(registry);
        assertThat(registry.get("kafka.stream.client.state").gauge().getId().getTags())
                .extracting(t -> t.getKey()).containsExactly("client-id");
    }
}
