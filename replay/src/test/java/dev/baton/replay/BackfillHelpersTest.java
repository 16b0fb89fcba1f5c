package dev.baton.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.baton.app.AppFailure;

/** The small pieces behind the replay: line peeking, snapshot ids, the readable view. */
class BackfillHelpersTest {

    @Test
    void shouldPeekTheIdsOfALineWithoutCaringAboutTheRest() {
        var peek = BackfillRunner.peek(("{\"event_id\":\"e\",\"turn\":{\"seq\":1,\"trail\":[{\"x\":[1,2]}]},"
                + "\"tenant_id\":\"t\",\"session_id\":\"s\",\"handoff\":{\"to_agent\":\"a\",\"handoff_id\":\"h\"}}")
                .getBytes(StandardCharsets.UTF_8));
        assertThat(peek.key()).isEqualTo("t/s");
        assertThat(peek.handoffId()).isEqualTo("h");
    }

    @Test
    void shouldPeekNothingFromALineThatIsNotAnObject() {
        assertThat(BackfillRunner.peek("[1,2]".getBytes(StandardCharsets.UTF_8)).key()).isNull();
        assertThat(BackfillRunner.peek("{\"tenant_id\":\"t\",".getBytes(StandardCharsets.UTF_8)).key()).isNull();
        assertThat(BackfillRunner.peek("{\"tenant_id\":7,\"session_id\":\"s\"}".getBytes(StandardCharsets.UTF_8)).key())
                .isNull();
    }

    @Test
    void shouldTellAReceiptFromAnEventByContentSha256WithoutTenantId() {
        var receipt = BackfillRunner.peek(("{\"snapshot_id\":\"t/s/h/x\",\"content_sha256\":\"ab\","
                + "\"started_at\":\"2026-12-03T10:00:00Z\"}").getBytes(StandardCharsets.UTF_8));
        assertThat(receipt.receipt()).isTrue();
        assertThat(receipt.key()).isEqualTo("t/s"); // the session of its snapshot id (a hand-off id may hold '/')
        var event = BackfillRunner.peek("{\"tenant_id\":\"t\",\"session_id\":\"s\",\"content_sha256\":\"ab\"}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(event.receipt()).isFalse();
        assertThat(event.key()).isEqualTo("t/s");
        var unkeyed = BackfillRunner.peek("{\"snapshot_id\":\"nosession\",\"content_sha256\":\"ab\"}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(unkeyed.receipt()).isTrue();
        assertThat(unkeyed.key()).isNull();
    }

    @Test
    void shouldReadTheSnapshotIdOfASnapshotLine() {
        assertThat(BackfillRunner.snapshotIdOf("{\"snapshot_id\":\"t/s/h\",\"tenant_id\":\"t\"}"
                .getBytes(StandardCharsets.UTF_8))).isEqualTo("t/s/h");
        assertThatThrownBy(() -> BackfillRunner.snapshotIdOf("{}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(AppFailure.class);
    }

    @Test
    void shouldShortenLongTextsForTheScreenOnly() {
        String text = "a".repeat(600) + "b".repeat(600);
        String shown = SnapshotPrinter.shorten(text, 300);
        assertThat(shown).startsWith("a".repeat(200)).endsWith("b".repeat(100)).contains("900 more characters");
        assertThat(SnapshotPrinter.shorten("short", 300)).isEqualTo("short");
    }

    @Test
    void shouldKeepTheOriginalBytesOfADeadLetterLineThatIsNotUtf8() throws Exception {
        byte[] bad = {'{', '"', 'a', (byte) 0xC3, (byte) 0x28, '"', '}'};
        var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(BackfillRunner.deadLetterLine(1,
                new Replay.ReportedDeadLetter("MALFORMED", "not UTF-8", null, bad, bad.length)));
        assertThat(node.get("record").asText()).contains("\uFFFD");
        assertThat(java.util.Base64.getDecoder().decode(node.get("record_base64").asText())).isEqualTo(bad);

        var good = new com.fasterxml.jackson.databind.ObjectMapper().readTree(BackfillRunner.deadLetterLine(1,
                new Replay.ReportedDeadLetter("MALFORMED", "x", null, "{\"é\"}".getBytes(StandardCharsets.UTF_8), 7)));
        assertThat(good.get("record").asText()).isEqualTo("{\"é\"}");
        assertThat(good.has("record_base64")).isFalse();
    }
}
