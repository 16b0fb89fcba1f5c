package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.processor.MetricCatalogue;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The catalogue of Baton's metrics against what the service registers and what docs/operations.md lists: a metric
 * added, renamed or dropped in one place and not the others fails here (LiveMetricsIT checks the docs against a live
 * scrape as well).
 */
class MetricCatalogueTest {
    private static final Pattern BATON_SERIES = Pattern.compile("\\bbaton_[a-z_]*[a-z]\\b");

    @TempDir
    Path stateDir;

    @Test
    void shouldListInTheOperationsGuideExactlyTheCataloguesMeters() throws IOException {
        String doc = Files.readString(Paths.get("..", "docs", "operations.md"));
        Set<String> named = new TreeSet<>();
        Matcher m = BATON_SERIES.matcher(doc);
        while (m.find()) named.add(m.group());

        assertThat(named).isEqualTo(catalogued());
    }

    @Test
    void shouldRegisterEveryCataloguedMeterUnderItsPrometheusName() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "catalogue-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        Topology topology = new Topology();
        topology.addSource("in", "in");
        try (KafkaStreams streams = new KafkaStreams(topology, props)) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new ApplicationMeters(streams).bindTo(registry);
            TenantTokens.bindWithoutFile(registry);

            Set<String> scraped = registry.scrape().lines().filter(l -> l.startsWith("baton_"))
                    .map(l -> l.replaceFirst("[{ ].*", "")).collect(Collectors.toCollection(TreeSet::new));
            assertThat(scraped).isEqualTo(catalogued());
        }
    }

    private static Set<String> catalogued() {
        return Arrays.stream(MetricCatalogue.values()).map(MetricCatalogue::prometheusName).filter(Objects::nonNull)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
