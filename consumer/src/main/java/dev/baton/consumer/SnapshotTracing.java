package dev.baton.consumer;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.avro.ContextSnapshot;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Continues a hand-off's trace into the receiving agent's call (docs/operations.md, "Tracing";
 * examples/consumers/README.md): a snapshot record's {@code traceparent} (and {@code tracestate}) header names
 * Baton's {@code baton.handoff} span; {@link #parent} turns the record's headers into the {@link Context} to start the
 * agent-call span in, {@link #startAgentCall} starts that span (kind CLIENT), named and attributed per the
 * OpenTelemetry GenAI semantic conventions: {@code "{gen_ai.operation.name} {gen_ai.request.model}"},
 * {@code gen_ai.operation.name}, {@code gen_ai.request.model}, {@code gen_ai.provider.name},
 * {@code gen_ai.conversation.id} = the snapshot's session. Ids only: never the prompt or the answer.
 *
 * <pre>{@code
 * Span call = SnapshotTracing.startAgentCall(otel, SnapshotTracing.parent(otel, record.headers()), snapshot,
 *         "chat", "qwen3-8b", "openai");
 * try (Scope ignored = call.makeCurrent()) { ... send the request ... } finally { call.end(); }
 * }</pre>
 * The OpenTelemetry API and the Kafka clients are optional dependencies of this module: add them to use this class.
 */
public final class SnapshotTracing {
    public static final String TRACEPARENT = "traceparent";
    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    public static final AttributeKey<String> MODEL = AttributeKey.stringKey("gen_ai.request.model");
    public static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("gen_ai.provider.name");
    public static final AttributeKey<String> CONVERSATION = AttributeKey.stringKey("gen_ai.conversation.id");
    public static final AttributeKey<String> TENANT = AttributeKey.stringKey("baton.tenant.id");
    public static final AttributeKey<String> HANDOFF = AttributeKey.stringKey("baton.handoff.id");
    public static final AttributeKey<String> SNAPSHOT = AttributeKey.stringKey("baton.snapshot.id");

    private static final TextMapGetter<Headers> HEADERS = (headers, key) -> {
        if (headers == null) return null;
        Header h = headers.lastHeader(key);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    };

    private SnapshotTracing() {
    }

    /**
     * The context to start the agent-call span in: Baton's span (from the record's {@code traceparent}) as remote
     * parent; a record without a valid one gives the root context (the call starts a new trace).
     */
    public static Context parent(OpenTelemetry otel, Headers headers) {
        return otel.getPropagators().getTextMapPropagator().extract(Context.root(), headers, HEADERS);
    }

    /**
     * Starts the span of the receiving agent's call for {@code snapshot}, child of {@code parent}; end it when the
     * call's answer is in.
     *
     * @param operation {@code gen_ai.operation.name}, e.g. {@code chat} (chat completions, messages) or
     *                  {@code invoke_agent} (a CLI agent)
     * @param model     {@code gen_ai.request.model}, or null when unknown
     * @param provider  {@code gen_ai.provider.name}, e.g. {@code openai}, {@code anthropic}, {@code gcp.gemini}
     */
    public static Span startAgentCall(OpenTelemetry otel, Context parent, ContextSnapshot snapshot, String operation,
                                      String model, String provider) {
        return start(otel, parent, operation, model, provider, snapshot.getTenantId(), snapshot.getSessionId(),
                snapshot.getHandoffId(), snapshot.getSnapshotId());
    }

    /** {@link #startAgentCall(OpenTelemetry, Context, ContextSnapshot, String, String, String)} for the JSON form. */
    public static Span startAgentCall(OpenTelemetry otel, Context parent, JsonNode snapshot, String operation,
                                      String model, String provider) {
        return start(otel, parent, operation, model, provider, snapshot.path("tenant_id").asText(null),
                snapshot.path("session_id").asText(null), snapshot.path("handoff_id").asText(null),
                snapshot.path("snapshot_id").asText(null));
    }

    private static Span start(OpenTelemetry otel, Context parent, String operation, String model, String provider,
                              String tenant, String session, String handoff, String snapshotId) {
        var b = otel.getTracer("dev.baton.consumer")
                .spanBuilder(model == null ? operation : operation + " " + model)
                .setSpanKind(SpanKind.CLIENT).setParent(parent == null ? Context.root() : parent)
                .setAttribute(OPERATION, operation);
        if (model != null) b.setAttribute(MODEL, model);
        if (provider != null) b.setAttribute(PROVIDER, provider);
        if (session != null) b.setAttribute(CONVERSATION, session);
        if (tenant != null) b.setAttribute(TENANT, tenant);
        if (handoff != null) b.setAttribute(HANDOFF, handoff);
        if (snapshotId != null) b.setAttribute(SNAPSHOT, snapshotId);
        return b.startSpan();
    }
}
