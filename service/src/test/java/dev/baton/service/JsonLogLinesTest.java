package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.processor.LogContext;

/**
 * The log lines of {@code baton run} as its own log4j2.properties writes them (not the tests' configuration):
 * with {@code baton.log.format=json} (what {@code BATON_LOG_FORMAT=json} selects) one JSON object per line with the
 * logging context's ids as fields; with text, the pattern a person reads.
 */
class JsonLogLinesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Logger LOG = LoggerFactory.getLogger("dev.baton.service.JsonLogLinesTest");
    private final PrintStream stderr = System.err;

    @AfterEach
    void restore() throws Exception {
        System.setErr(stderr);
        System.clearProperty("baton.log.format");
        Configurator.reconfigure(getClass().getResource("/log4j2-test.properties").toURI()); // the tests' own
    }

    /** Logs with the main configuration and the given format; returns what went to stderr. */
    @SuppressWarnings("try") // the log context is for the log line inside: not read in the block
    private String logWith(String format) throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        System.setProperty("baton.log.format", format);
        URI main = getClass().getResource("/log4j2.properties").toURI();
        Configurator.reconfigure(main);
        RecordHeaders headers = new RecordHeaders();
        headers.add(LogContext.TRACEPARENT,
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".getBytes(StandardCharsets.US_ASCII));
        try (LogContext log = LogContext.session("acme/s-1").with(LogContext.HANDOFF, "h-1")
                .with(LogContext.DEAD_LETTER_CODE, "INTERNAL").traceOf(headers)) {
            LOG.error("Unexpected failure on record of session {}", "acme/s-1", new IllegalStateException("boom"));
        }
        LOG.info("after the context");
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldWriteOneJsonObjectPerLineWithTheSessionsIdsAsFields() throws Exception {
        List<String> lines = logWith("json").lines().toList();

        assertThat(lines).hasSize(2);
        JsonNode first = JSON.readTree(lines.get(0));
        assertThat(first.get("level").asText()).isEqualTo("ERROR");
        assertThat(first.get("message").asText()).isEqualTo("Unexpected failure on record of session acme/s-1");
        assertThat(first.get("tenant").asText()).isEqualTo("acme");
        assertThat(first.get("session").asText()).isEqualTo("s-1");
        assertThat(first.get("handoff").asText()).isEqualTo("h-1");
        assertThat(first.get("dead_letter_code").asText()).isEqualTo("INTERNAL");
        assertThat(first.get("trace_id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(first.get("error.type").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(first.get("error.stack_trace").asText()).contains("JsonLogLinesTest");
        assertThat(first.get("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
        // the context ends with its block
        JsonNode second = JSON.readTree(lines.get(1));
        assertThat(second.get("message").asText()).isEqualTo("after the context");
        assertThat(second.has("tenant")).isFalse();
    }

    @Test
    void shouldWriteTextLinesByDefault() throws Exception {
        String text = logWith("text");

        assertThat(text).contains("ERROR [").contains("Unexpected failure on record of session acme/s-1")
                .contains("java.lang.IllegalStateException: boom");
        assertThat(text.lines().findFirst().orElseThrow()).doesNotStartWith("{");
    }
}
