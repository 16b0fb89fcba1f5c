package dev.baton.consumer.dialect.sdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.consumer.SnapshotPrompts;

/**
 * The snapshots the round trips send: lines of a JSON-lines file with members {@code name} and {@code snapshot} (the
 * shared vectors examples/consumers/testdata/dialects.jsonl, one line per snapshot and dialect, and this package's
 * hand-made cases). Each snapshot is read with {@link SnapshotPrompts#readJson}, so its arguments keep their exact
 * literals ({@code 1e3}).
 */
final class RequestCases {

    /** One snapshot by name; {@code line} is its whole line (the hand-made file's {@code requests} are in it). */
    record Case(String name, JsonNode snapshot, JsonNode line) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestCases() {
    }

    /** The distinct snapshots of the file, in file order (the first line of each name). */
    static List<Case> read(Path file) {
        Map<String, Case> byName = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode whole = JsonValues.parse(line);
                String name = whole.path("name").asText();
                if (!byName.containsKey(name)) {
                    byName.put(name, new Case(name, SnapshotPrompts.readJson(snapshotText(line)), whole));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ArrayList<>(byName.values());
    }

    /** The exact text of the top-level member {@code snapshot}. */
    private static String snapshotText(String line) throws IOException {
        try (JsonParser p = JSON.getFactory().createParser(line)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                int start = (int) p.currentTokenLocation().getCharOffset();
                p.skipChildren();
                if (field.equals("snapshot")) {
                    return line.substring(start, (int) p.currentLocation().getCharOffset());
                }
            }
        }
        throw new IOException("no snapshot member in " + line);
    }
}
