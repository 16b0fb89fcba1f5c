package dev.baton.service.viewer;

import java.io.IOException;
import java.io.Writer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes the report page of {@code baton view} as the snapshots come, in bounded memory apart from a small index:
 * each snapshot in its own data element ({@code baton-s-N}, parsed by the page only when it is shown), then one index
 * element ({@code baton-index}: per snapshot the few fields the list shows and filters on), then the script.
 */
public final class ReportWriter implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@code baton backfill --handoff-at} ids: {@code baton-synthetic:TRIGGER:...}. */
    private static final String SYNTHETIC_PREFIX = "baton-synthetic:";

    private final Writer out;
    private final String source;
    private final ArrayNode index = JSON.createArrayNode();
    private long skipped;

    public ReportWriter(Writer out, String source) throws IOException {
        this.out = out;
        this.source = source;
        out.write(ViewerPage.head(ViewerPage.Mode.REPORT));
    }

    /** Whether {@code node} looks like a ContextSnapshot (an object with the ids the viewer lists it by). */
    public static boolean isSnapshot(JsonNode node) {
        return node != null && node.isObject() && node.path("snapshot_id").isTextual() && node.path("tenant_id").isTextual()
                && node.path("session_id").isTextual() && node.path("handoff_id").isTextual();
    }

    /** Adds one snapshot ({@link #isSnapshot} must hold). */
    public void add(JsonNode snapshot) throws IOException {
        out.write(ViewerPage.dataElement("baton-s-" + index.size(), JSON.writeValueAsString(snapshot)));
        String handoff = snapshot.path("handoff_id").asText();
        ObjectNode entry = index.addObject()
                .put("t", snapshot.path("tenant_id").asText())
                .put("s", snapshot.path("session_id").asText())
                .put("h", handoff)
                .put("to", snapshot.path("to_agent").asText(""))
                .put("ta", snapshot.path("target").asText(""))
                .put("q", snapshot.path("as_of_seq").asLong(-1))
                .put("c", snapshot.path("stats").path("message_chars").asLong(0))
                .put("k", snapshot.path("stats").path("estimated_tokens").asLong(0))
                .put("x", snapshot.path("truncations").size());
        if (snapshot.path("synthetic").asBoolean(false)) {
            entry.put("sy", true);
            if (handoff.startsWith(SYNTHETIC_PREFIX)) {
                String rest = handoff.substring(SYNTHETIC_PREFIX.length());
                int colon = rest.indexOf(':');
                entry.put("tr", colon < 0 ? rest : rest.substring(0, colon));
            }
        }
    }

    /** Counts a line that was not a snapshot (shown in the page's header). */
    public void skip() {
        skipped++;
    }

    public int snapshots() {
        return index.size();
    }

    /** Writes the index and the script; the page is complete. */
    @Override
    public void close() throws IOException {
        ObjectNode data = JSON.createObjectNode();
        data.put("source", source).put("skipped", skipped).set("snapshots", index);
        out.write(ViewerPage.dataElement("baton-index", JSON.writeValueAsString(data)));
        out.write(ViewerPage.tail());
        out.flush();
    }
}
