package dev.baton.processor;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.slf4j.MDC;

/**
 * The keys a log line about a session carries in the logging context (SLF4J's MDC, log4j's ThreadContext), so that the
 * JSON log lines ({@code BATON_LOG_FORMAT=json}) have them as fields: {@value #TENANT}, {@value #SESSION},
 * {@value #HANDOFF}, {@value #SNAPSHOT}, {@value #DEAD_LETTER_CODE}, {@value #TRACE_ID}. Only ids and codes, never
 * content. Set around the log call only (try-with-resources), so the hot path pays nothing; a key whose value is not
 * known is left out.
 */
public final class LogContext implements AutoCloseable {
    public static final String TENANT = "tenant";
    public static final String SESSION = "session";
    public static final String HANDOFF = "handoff";
    public static final String SNAPSHOT = "snapshot";
    public static final String DEAD_LETTER_CODE = "dead_letter_code";
    public static final String TRACE_ID = "trace_id";
    /** W3C Trace Context header a producer may put on a record: version-traceid-parentid-flags. */
    public static final String TRACEPARENT = "traceparent";

    private final List<String> keys = new ArrayList<>(4);

    private LogContext() {
    }

    /** An empty context. */
    public static LogContext empty() {
        return new LogContext();
    }

    /** Tenant and session of a session key ({@code tenant/session}); nothing when the key is not one. */
    public static LogContext session(String sessionKey) {
        LogContext c = new LogContext();
        if (sessionKey != null) {
            int slash = sessionKey.indexOf('/');
            if (slash > 0 && slash < sessionKey.length() - 1) {
                c.with(TENANT, sessionKey.substring(0, slash)).with(SESSION, sessionKey.substring(slash + 1));
            }
        }
        return c;
    }

    /** Tenant and session. */
    public static LogContext session(String tenantId, String sessionId) {
        return new LogContext().with(TENANT, tenantId).with(SESSION, sessionId);
    }

    /** Adds {@code key} (left out when {@code value} is null). */
    public LogContext with(String key, String value) {
        if (value != null) {
            MDC.put(key, value);
            keys.add(key);
        }
        return this;
    }

    /** Adds the trace id of a record's {@value #TRACEPARENT} header, when it has a well-formed one. */
    public LogContext traceOf(Headers headers) {
        Header h = headers == null ? null : headers.lastHeader(TRACEPARENT);
        if (h == null || h.value() == null) return this;
        String v = new String(h.value(), StandardCharsets.US_ASCII);
        // 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>
        if (v.length() >= 55 && v.charAt(2) == '-' && v.charAt(35) == '-'
                && v.substring(3, 35).chars().allMatch(ch -> Character.digit(ch, 16) >= 0)) {
            with(TRACE_ID, v.substring(3, 35));
        }
        return this;
    }

    @Override
    public void close() {
        for (String k : keys) MDC.remove(k);
        keys.clear();
    }
}
