package dev.baton.service;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.baton.config.BatonConfig;
import io.micrometer.core.instrument.config.MeterFilter;

/** Micrometer filters that keep {@code /metrics} free of series that would be counted twice. */
final class MetricFilters {

    private MetricFilters() {
    }

    /**
     * Kafka Streams tags its client and thread metrics with {@code process-id}, a UUID that is new
     * whenever the state directory is (a new volume, a new container): every such start would make new
     * series. {@code client_id} and {@code thread_id} (from {@code client.id}) already tell the
     * instances apart, so the tag is dropped.
     */
    static MeterFilter withoutProcessId() {
        return MeterFilter.ignoreTags("process-id", "process.id", "process_id");
    }

    /**
     * The consumer registers its per-topic fetch metrics (lag, lead, bytes, records) twice: once with
     * the topic's name and once, for compatibility, with its dots replaced by underscores
     * ({@code baton.session-events} and {@code baton_session-events}), so a {@code sum} over them
     * doubles. This drops the underscore copy of Baton's own topics' series (a topic that really has an
     * underscore in its name is kept).
     */
    static MeterFilter withoutLegacyTopicTags(BatonConfig config) {
        Set<String> legacy = new HashSet<>();
        List<String> topics = new java.util.ArrayList<>(List.of(config.sessionEventsTopic(), config.contextSnapshotsTopic(),
                config.deadLettersTopic()));
        config.tenantPoliciesTopic().ifPresent(topics::add);
        config.handoffReceiptsTopic().ifPresent(t -> {
            topics.add(t);
            topics.add(config.handoffOutcomesTopic());
        });
        for (String topic : topics) {
            if (topic.contains(".")) {
                legacy.add(topic.replace('.', '_'));
            }
        }
        return MeterFilter.deny(id -> {
            String topic = id.getTag("topic");
            return topic != null && legacy.contains(topic) && !topics.contains(topic);
        });
    }
}
