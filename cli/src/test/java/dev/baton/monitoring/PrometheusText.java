package dev.baton.monitoring;

import java.util.Set;
import java.util.TreeSet;

/** Reads the Prometheus text exposition format: the names of the series in a scrape. */
final class PrometheusText {

    private PrometheusText() {
    }

    /** Every sample name ({@code name{labels} value} or {@code name value}); comments skipped. */
    static Set<String> seriesNames(String scrape) {
        Set<String> names = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                end++;
            }
            names.add(line.substring(0, end));
        }
        return names;
    }
}
