package dev.baton.cli.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;

class EventLinesTest {

    private static final String TURN = "{\"event_id\":\"e1\",\"tenant_id\":\"acme\",\"session_id\":\"s1\","
            + "\"occurred_at\":\"2026-11-30T09:00:07.000Z\",\"turn\":{\"seq\":0,\"agent\":\"coder\",\"role\":\"USER\","
            + "\"text\":\"hello\"}}";

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldAcceptAGoodLineInBothFormatsWithBatonsKey() {
        for (String format : new String[] {"json", "avro"}) {
            EventLines lines = new EventLines(format, 1 << 20);
            EventLines.Verdict v = lines.judge("baton.session-events", utf8(TURN));
            assertThat(v.accepted()).as(format + ": " + v.message()).isTrue();
            assertThat(v.key()).isEqualTo("acme/s1");
            lines.close();
        }
    }

    @Test
    void shouldGiveTheCodeAndMessageOfBatonsOwnDecoder() {
        String bad = TURN.replace("\"coder\"", "\"Claude Opus\"");
        EventLines.Verdict v = new EventLines("json", 1 << 20).judge("t", utf8(bad));
        Decoded baton = SessionEventDecoder.json(1 << 20).decode(utf8("acme/s1"), utf8(bad));
        assertThat(v.code()).isEqualTo(baton.code().name());
        assertThat(v.message()).isEqualTo(baton.message());
        assertThat(new EventLines("avro", 1 << 20).judge("t", utf8(bad)).code()).isEqualTo(baton.code().name());
    }

    @Test
    void shouldJudgeTheSizeOfTheRecordInTheTopicsFormat() {
        // the Avro record is smaller than the JSON line: a limit between the two refuses only JSON
        int jsonSize = "acme/s1".length() + TURN.length();
        assertThat(new EventLines("json", jsonSize - 1).judge("t", utf8(TURN)).code()).isEqualTo("OVERSIZED");
        assertThat(new EventLines("avro", jsonSize - 1).judge("t", utf8(TURN)).accepted()).isTrue();
        assertThat(new EventLines("avro", 20).judge("t", utf8(TURN)).code()).isEqualTo("OVERSIZED");
    }

    @Test
    void shouldCallALineThatIsNotJsonMalformed() {
        assertThat(new EventLines("avro", 1 << 20).judge("t", utf8("{\"event_id\":")).code()).isEqualTo("MALFORMED");
        assertThat(new EventLines("json", 1 << 20).judge("t", utf8("[1]")).code()).isEqualTo("MALFORMED");
    }
}
