package dev.baton.receivers;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The corpus's counts, written to {@code cli/target/receivers-corpus/report.json} and printed. */
final class CorpusReport {
    static final ObjectNode ROOT = SessionBuilder.JSON.createObjectNode();

    private CorpusReport() {
    }

    /** {"median", "max", "count"} of a list of ratios. */
    static ObjectNode spread(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        ObjectNode o = SessionBuilder.JSON.createObjectNode();
        o.put("count", sorted.size());
        if (sorted.isEmpty()) return o;
        int n = sorted.size();
        double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        o.put("median", Math.round(median * 1000) / 1000.0);
        o.put("max", Math.round(sorted.get(n - 1) * 1000) / 1000.0);
        return o;
    }

    static synchronized void write() throws IOException {
        Path file = ReceiverCorpus.outputDir().resolve("report.json");
        Files.createDirectories(file.getParent());
        String text = SessionBuilder.JSON.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(ROOT);
        Files.writeString(file, text + "\n");
        System.out.println(file + ":\n" + text);
    }
}
