package dev.baton.processor;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.snapshot.EncodingTokenCount;
import dev.baton.engine.snapshot.Snapshot;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Baton's part of a hand-off's trace (docs/operations.md, "Tracing"): a span {@value #SPAN_NAME} (kind CONSUMER) per
 * hand-off event, continuing the W3C {@code traceparent}/{@code tracestate} of its record (none: a new trace), from
 * before its decode until its snapshot has been rendered and handed to the producer; the snapshot record carries
 * that span's {@code traceparent}. A hand-off that is parked (waiting for turns) ends its span when its record has
 * been applied; the snapshot released later is written under a span {@value #RELEASE_SPAN_NAME}, child of the parked
 * hand-off's span when this task still remembers it (in memory, bounded; a new trace after a restart or a move).
 *
 * <p>{@link #OFF} (backfill, demo, a service without {@code OTEL_*} configuration) does nothing at all: no span, no
 * header, no allocation. Attributes name ids, counts and kinds only, never content (no message, brief or brick text).
 */
public final class HandoffTracing {
    public static final String SPAN_NAME = "baton.handoff";
    public static final String RELEASE_SPAN_NAME = "baton.handoff.release";
    public static final String INSTRUMENTATION = "dev.baton";
    /** Hand-offs parked at once whose span context a task remembers; beyond, the oldest is forgotten. */
    static final int MAX_PARKED = 10_000;

    public static final AttributeKey<String> TENANT = AttributeKey.stringKey("baton.tenant.id");
    public static final AttributeKey<String> SESSION = AttributeKey.stringKey("baton.session.id");
    public static final AttributeKey<String> HANDOFF = AttributeKey.stringKey("baton.handoff.id");
    public static final AttributeKey<String> FROM_AGENT = AttributeKey.stringKey("baton.handoff.from_agent");
    public static final AttributeKey<String> RECEIVER = AttributeKey.stringKey("baton.handoff.to_agent");
    public static final AttributeKey<String> TARGET = AttributeKey.stringKey("baton.handoff.target");
    public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("baton.handoff.outcome");
    public static final AttributeKey<String> SNAPSHOT = AttributeKey.stringKey("baton.snapshot.id");
    public static final AttributeKey<Long> AS_OF_SEQ = AttributeKey.longKey("baton.snapshot.as_of_seq");
    public static final AttributeKey<Long> MESSAGE_CHARS = AttributeKey.longKey("baton.snapshot.message_chars");
    public static final AttributeKey<Long> BRICK_CHARS = AttributeKey.longKey("baton.snapshot.brick_chars");
    public static final AttributeKey<Long> ESTIMATED_TOKENS = AttributeKey.longKey("baton.snapshot.estimated_tokens");
    public static final AttributeKey<String> TOKEN_ENCODING = AttributeKey.stringKey("baton.snapshot.token_encoding");
    public static final AttributeKey<Long> TRANSCRIPT_TOKENS = AttributeKey.longKey("baton.snapshot.transcript_tokens");
    public static final AttributeKey<Long> BRICK_TOKENS = AttributeKey.longKey("baton.snapshot.brick_tokens");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> MESSAGING_DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> MESSAGING_OPERATION = AttributeKey.stringKey("messaging.operation.type");

    /** No tracing: every method returns at once. */
    public static final HandoffTracing OFF = new HandoffTracing(null, null);

    /** Marks the context of a hand-off event's span with its hand-off id (whose snapshot it emits). */
    private static final ContextKey<String> HANDOFF_KEY = ContextKey.named("baton.handoff.id");

    private static final TextMapGetter<Headers> GETTER = (headers, key) -> {
        if (headers == null) return null;
        Header h = headers.lastHeader(key);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    };

    private static final TextMapSetter<Headers> SETTER = (headers, key, value) -> {
        headers.remove(key);
        headers.add(key, value.getBytes(StandardCharsets.UTF_8));
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    private HandoffTracing(Tracer tracer, TextMapPropagator propagator) {
        this.tracer = tracer;
        this.propagator = propagator;
    }

    /** Tracing with {@code otel}'s tracer and propagators (W3C Trace Context by default). */
    public static HandoffTracing of(OpenTelemetry otel) {
        return new HandoffTracing(otel.getTracer(INSTRUMENTATION),
                otel.getPropagators().getTextMapPropagator());
    }

    public boolean on() {
        return tracer != null;
    }

    /** The start of a record's processing, taken before its decode; null when off. */
    public Instant start() {
        return on() ? Instant.now() : null;
    }

    /**
     * Starts the span of a hand-off event, child of its record's {@code traceparent} (when valid), from
     * {@code start}, and makes it current until {@link Active#close}. Off: {@link Active#NONE}.
     *
     * @param headers the input record's headers, as read from the topic
     * @param topic   the input topic, or null
     */
    public Active startHandoff(Headers headers, String tenantId, String sessionId, Handoff h, Instant start,
                               String topic) {
        if (!on()) return Active.NONE;
        Context parent = propagator.extract(Context.root(), headers, GETTER);
        var b = tracer.spanBuilder(SPAN_NAME).setSpanKind(SpanKind.CONSUMER).setParent(parent)
                .setAttribute(TENANT, tenantId).setAttribute(SESSION, sessionId)
                .setAttribute(HANDOFF, h.handoffId()).setAttribute(FROM_AGENT, h.fromAgent())
                .setAttribute(RECEIVER, h.toAgent()).setAttribute(TARGET, h.target().name())
                .setAttribute(MESSAGING_SYSTEM, "kafka").setAttribute(MESSAGING_OPERATION, "process");
        if (topic != null) b.setAttribute(MESSAGING_DESTINATION, topic);
        if (start != null) b.setStartTimestamp(start);
        Span span = b.startSpan();
        // the parent context keeps the producer's baggage, if any; our key names the hand-off this span emits
        Context context = parent.with(span).with(HANDOFF_KEY, h.handoffId());
        return new Active(span, context.makeCurrent());
    }

    /** Records how the current hand-off's arrival ended (ready, parked, duplicate); remembers a parked one. */
    public void handoffApplied(String sessionKey, String handoffId, String outcome, Parked parked) {
        if (!on()) return;
        Context current = Context.current();
        if (!handoffId.equals(current.get(HANDOFF_KEY))) return;
        Span span = Span.fromContext(current);
        span.setAttribute(OUTCOME, outcome);
        if ("parked".equals(outcome)) parked.remember(sessionKey, handoffId, span.getSpanContext());
    }

    /**
     * Emits {@code snapshot} through {@code emit} under its span, with that span's {@code traceparent} added to
     * {@code headers}: the current hand-off span when the snapshot is its own, else a {@value #RELEASE_SPAN_NAME}
     * span (child of the parked hand-off's span when remembered) that ends after the emit.
     */
    public void emit(String sessionKey, Snapshot snapshot, Headers headers, Parked parked, Runnable emit) {
        if (!on()) {
            emit.run();
            return;
        }
        Context current = Context.current();
        if (snapshot.handoffId().equals(current.get(HANDOFF_KEY))) {
            describe(Span.fromContext(current), snapshot);
            propagator.inject(current, headers, SETTER);
            emit.run();
            return;
        }
        SpanContext parkedSpan = parked.take(sessionKey, snapshot.handoffId());
        Context parent = parkedSpan == null ? Context.root() : Context.root().with(Span.wrap(parkedSpan));
        Span span = tracer.spanBuilder(RELEASE_SPAN_NAME).setSpanKind(SpanKind.INTERNAL).setParent(parent)
                .setAttribute(TENANT, snapshot.tenantId()).setAttribute(SESSION, snapshot.sessionId())
                .setAttribute(HANDOFF, snapshot.handoffId()).setAttribute(FROM_AGENT, snapshot.fromAgent())
                .setAttribute(RECEIVER, snapshot.toAgent()).setAttribute(TARGET, snapshot.target().name())
                .startSpan();
        describe(span, snapshot);
        Context context = parent.with(span).with(HANDOFF_KEY, snapshot.handoffId());
        Scope scope = context.makeCurrent();
        try {
            propagator.inject(context, headers, SETTER);
            emit.run();
        } catch (RuntimeException e) {
            failed(span, e);
            throw e;
        } finally {
            scope.close();
            span.end();
        }
    }

    private static void describe(Span span, Snapshot s) {
        span.setAttribute(SNAPSHOT, s.snapshotId());
        span.setAttribute(AS_OF_SEQ, s.asOfSeq());
        if (s.stats() == null) return;
        span.setAttribute(MESSAGE_CHARS, s.stats().messageChars());
        span.setAttribute(BRICK_CHARS, s.stats().brickChars());
        span.setAttribute(ESTIMATED_TOKENS, s.stats().estimatedTokens());
        List<EncodingTokenCount> counts = s.stats().tokenCounts();
        if (counts != null && !counts.isEmpty()) {
            EncodingTokenCount first = counts.get(0);
            span.setAttribute(TOKEN_ENCODING, first.encoding());
            span.setAttribute(TRANSCRIPT_TOKENS, first.transcriptTokens());
            span.setAttribute(BRICK_TOKENS, first.brickTokens());
        }
    }

    /** The exception's type only: its message or stack may quote content. */
    private static void failed(Span span, RuntimeException e) {
        span.setAttribute(ERROR_TYPE, e.getClass().getName());
        span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
    }

    /** A started hand-off span, current until closed; closing ends it. */
    public static final class Active implements AutoCloseable {
        public static final Active NONE = new Active(null, null);
        private final Span span;
        private final Scope scope;

        private Active(Span span, Scope scope) {
            this.span = span;
            this.scope = scope;
        }

        /** Marks the span failed (the exception's class only: its message may quote content). */
        public void failed(RuntimeException e) {
            if (span != null) HandoffTracing.failed(span, e);
        }

        @Override
        public void close() {
            if (span == null) return;
            scope.close();
            span.end();
        }
    }

    /**
     * The span contexts of a task's parked hand-offs, by session and hand-off id, so that the span of their later
     * release continues their trace. In memory and bounded ({@value #MAX_PARKED}, oldest forgotten first): lost on a
     * restart or when the task moves, then the release starts a new trace.
     */
    public static final class Parked {
        private final Map<String, SpanContext> spans = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, SpanContext> eldest) {
                return size() > MAX_PARKED;
            }
        };

        void remember(String sessionKey, String handoffId, SpanContext span) {
            if (span.isValid()) spans.put(sessionKey + '\n' + handoffId, span);
        }

        SpanContext take(String sessionKey, String handoffId) {
            return spans.remove(sessionKey + '\n' + handoffId);
        }

        int size() {
            return spans.size();
        }
    }
}
