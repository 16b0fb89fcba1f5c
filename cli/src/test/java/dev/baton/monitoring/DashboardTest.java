package dev.baton.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The Grafana dashboard of deploy/components/monitoring: namespace and pod variables that every query
 * follows, and groupings only by labels the series carry (JVM series have no client_id).
 */
class DashboardTest {

    /** What the Prometheus Operator adds to every series of a ServiceMonitor's targets. */
    private static final Set<String> TARGET_LABELS = Set.of("job", "namespace", "pod", "instance", "service",
            "endpoint", "container");
    /** Micrometer's JVM memory binder tags its series with these only. */
    private static final Set<String> JVM_LABELS = Set.of("area", "id");
    private static final Pattern SELECTOR = Pattern.compile("\\b((?:baton|kafka|jvm)_[a-z0-9_]+)(\\{[^}]*})?");
    private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)\\s*\\(([^()]*(?:\\([^()]*\\))?[^()]*)\\)");

    private final JsonNode dashboard = read();

    @Test
    void shouldOfferNamespaceAndPodVariables() {
        List<String> names = new ArrayList<>();
        dashboard.at("/templating/list").forEach(v -> names.add(v.get("name").asText()));
        assertThat(names).contains("datasource", "namespace", "pod");
    }

    @Test
    void shouldScopeEveryQueryToTheChosenNamespaceAndPods() {
        List<String> unscoped = new ArrayList<>();
        for (String expr : MonitoringFiles.dashboardExpressions()) {
            Matcher m = SELECTOR.matcher(expr);
            while (m.find()) {
                String selector = m.group(2) == null ? "" : m.group(2);
                if (!selector.contains("namespace=~\"$namespace\"") || !selector.contains("pod=~\"$pod\"")
                        || !selector.contains("job=\"baton\"")) {
                    unscoped.add(m.group(1) + " in " + expr);
                }
            }
        }
        assertThat(unscoped).isEmpty();
    }

    @Test
    void shouldGroupJvmSeriesOnlyByLabelsTheyCarry() {
        int jvm = 0;
        for (String expr : MonitoringFiles.dashboardExpressions()) {
            Matcher m = GROUPING.matcher(expr);
            while (m.find()) {
                if (!m.group(2).contains("jvm_")) {
                    continue;
                }
                jvm++;
                for (String label : m.group(1).split(",")) {
                    assertThat(label.trim()).as(expr).isIn(union(TARGET_LABELS, JVM_LABELS));
                }
            }
        }
        assertThat(jvm).as("grouped JVM queries").isPositive();
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> u = new java.util.TreeSet<>(a);
        u.addAll(b);
        return u;
    }

    private static JsonNode read() {
        try {
            return new ObjectMapper().readTree(Files.readString(MonitoringFiles.DASHBOARD));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
