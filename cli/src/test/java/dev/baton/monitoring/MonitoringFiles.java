package dev.baton.monitoring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/** The PromQL expressions of deploy/'s alert rules and Grafana dashboard. */
final class MonitoringFiles {

    static final Path COMPONENT = Paths.get("..", "deploy", "components", "monitoring");
    static final Path RULES = COMPONENT.resolve("prometheusrule.yaml");
    static final Path DASHBOARD = COMPONENT.resolve("baton-dashboard.json");

    private MonitoringFiles() {
    }

    /** The PromQL of the dashboard's panels. */
    static List<String> dashboardExpressions() {
        List<String> out = new ArrayList<>();
        try {
            JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
            for (JsonNode panel : dashboard.get("panels")) {
                for (JsonNode target : panel.path("targets")) {
                    out.add(target.get("expr").asText());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static List<String> expressions() {
        List<String> out = new ArrayList<>();
        try {
            JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile());
            for (JsonNode group : rules.at("/spec/groups")) {
                for (JsonNode rule : group.get("rules")) {
                    out.add(rule.get("expr").asText());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.addAll(dashboardExpressions());
        return out;
    }
}
