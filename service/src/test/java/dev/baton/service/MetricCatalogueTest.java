package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.baton.processor.MetricCatalogue;

/**
 * The catalogue of Baton's metrics against what docs/operations.md lists (ApplicationMetersTest holds the registered
 * meters to it, LiveMetricsIT the docs to a live scrape): a metric added, renamed or dropped in one place and not the
 * others fails.
 */
class MetricCatalogueTest {
    private static final Pattern BATON_SERIES = Pattern.compile("\\bbaton_[a-z_]*[a-z]\\b");

    @Test
    void shouldListInTheOperationsGuideExactlyTheCataloguesMeters() throws IOException {
        String doc = Files.readString(Paths.get("..", "docs", "operations.md"));
        Set<String> named = new TreeSet<>();
        Matcher m = BATON_SERIES.matcher(doc);
        while (m.find()) named.add(m.group());

        assertThat(named).isEqualTo(catalogued());
    }

    /** The Prometheus names of the catalogue's meters. */
    static Set<String> catalogued() {
        return Arrays.stream(MetricCatalogue.values()).map(MetricCatalogue::prometheusName).filter(Objects::nonNull)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
