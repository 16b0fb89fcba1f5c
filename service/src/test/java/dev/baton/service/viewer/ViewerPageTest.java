package dev.baton.service.viewer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** The page's data can neither leave its script element nor change meaning on the way. */
class ViewerPageTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Property
    void shouldKeepAnyStringsValueAndNothingThatEndsAScriptElement(@ForAll String text) throws IOException {
        String json = JSON.writeValueAsString(JSON.createObjectNode().put("k", text + "</script><!--\u2028\u2029"));
        String safe = ViewerPage.scriptSafe(json);
        assertThat(safe).doesNotContain("<", ">", "&", "\u2028", "\u2029");
        assertThat(JSON.readTree(safe)).isEqualTo(JSON.readTree(json));
    }

    @Test
    void shouldAllowOnlyItsOwnScriptAndStyleAndConnectNowhereFromTheReport() {
        String report = ViewerPage.contentSecurityPolicy(ViewerPage.Mode.REPORT);
        assertThat(report).startsWith("default-src 'none'; script-src 'sha256-").contains("style-src 'sha256-")
                .contains("img-src 'none'").contains("base-uri 'none'").contains("form-action 'none'")
                .doesNotContain("unsafe").doesNotContain("connect-src");
        assertThat(ViewerPage.consoleHeaderPolicy()).contains("connect-src 'self'").contains("frame-ancestors 'none'")
                .doesNotContain("unsafe");
    }

    @Test
    void shouldWriteEachSnapshotInItsOwnDataElementAndAnIndex() throws IOException {
        StringWriter out = new StringWriter();
        JsonNode snapshot = JSON.readTree("{\"snapshot_id\":\"t/s/h\",\"tenant_id\":\"t\",\"session_id\":\"s\","
                + "\"handoff_id\":\"baton-synthetic:error:4\",\"synthetic\":true,\"to_agent\":\"a</script>\","
                + "\"brick\":\"<!-- \u2028\"}");
        try (ReportWriter report = new ReportWriter(out, "in.jsonl")) {
            assertThat(ReportWriter.isSnapshot(snapshot)).isTrue();
            assertThat(ReportWriter.isSnapshot(JSON.readTree("{\"snapshot_id\":1}"))).isFalse();
            report.add(snapshot);
            report.skip();
        }
        String page = out.toString();
        assertThat(page).contains("<script type=\"application/json\" id=\"baton-s-0\">")
                .contains("\"tr\":\"error\"").contains("\"skipped\":1")
                .doesNotContain("a</script>").doesNotContain("<!-- ").doesNotContain("\u2028");
        // the page's own script and stylesheet, one data element per snapshot and the index: nothing else ends a script
        assertThat(page.split("</script>", -1)).hasSize(4);
    }
}
