package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The names Baton's counters have on /metrics (docs/operations.md lists them). */
class ApplicationMetersTest {

    @TempDir
    Path stateDir;

    @Test
    void shouldExposeBatonCountersUnderPrometheusNamesFromTheStart() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "meters-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        Topology topology = new Topology();
        topology.addSource("in", "in");
        try (KafkaStreams streams = new KafkaStreams(topology, props)) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new ApplicationMeters(streams).bindTo(registry);
            new LatencyTimers(registry, dev.baton.processor.TenantLabels.none());
            TenantTokens.bindWithoutFile(registry);

            String scrape = registry.scrape();

            // every catalogued meter, under the Prometheus name the catalogue gives, and no other (a histogram's
            // _count, _sum and _max series stand beside its _bucket series)
            Set<String> series = scrape.lines().filter(l -> l.startsWith("baton_"))
                    .map(l -> l.replaceFirst("[{ ].*", ""))
                    .map(n -> n.matches(".*_seconds_(count|sum|max)") ? n.replaceFirst("_(count|sum|max)$", "_bucket") : n)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(series).isEqualTo(MetricCatalogueTest.catalogued());

            assertThat(scrape)
                    .contains("baton_applied_turns_total 0.0")
                    .contains("baton_snapshots_emitted_total 0.0")
                    .contains("baton_duplicate_handoffs_total 0.0")
                    .contains("baton_dead_letters_total{code=\"LATE_TURN\"} 0.0")
                    .contains("baton_render_time_milliseconds_total 0.0")
                    .contains("baton_render_time_max_milliseconds 0.0")
                    .contains("baton_punctuation_failures_total 0.0")
                    .contains("baton_policy_records_refused_total 0.0")
                    .contains("baton_decoded_state_cache_bytes 0.0")
                    .contains("baton_decoded_state_cache_sessions 0.0")
                    .contains("baton_decoded_state_cache_hits_total 0.0")
                    .contains("baton_decoded_state_cache_misses_total 0.0");
        }
    }
}
