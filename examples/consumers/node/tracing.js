// Continues a hand-off's trace into the receiving agent's call (docs/operations.md, "Tracing";
// examples/consumers/README.md, "Tracing"). A snapshot record's `traceparent` (and `tracestate`) header names Baton's
// `baton.handoff` span; parentContext() turns the record's headers into the context to start the agent-call span in,
// startAgentCall() starts that span (kind CLIENT) per the OpenTelemetry GenAI semantic conventions:
// "{gen_ai.operation.name} {gen_ai.request.model}", gen_ai.operation.name, gen_ai.request.model,
// gen_ai.provider.name, gen_ai.conversation.id = the snapshot's session. Ids only: never the prompt or the answer.
//
// Only @opentelemetry/api is needed here: the application registers its SDK, exporter and W3C propagator (e.g.
// @opentelemetry/sdk-node); without them every call is a no-op. The hook in consumer.js, per snapshot:
//   const call = tracing.startAgentCall(snapshot, { model, provider }, tracing.parentContext(message.headers));
//   try { /* send the request, with tracing.outgoingHeaders(call) added */ } finally { call.end(); }
'use strict';

const { context, propagation, trace, ROOT_CONTEXT, SpanKind } = require('@opentelemetry/api');

const TRACER = 'dev.baton.consumer';

// kafkajs headers: { key: Buffer | string | (Buffer | string)[] }; the last value of a key counts, as in Kafka's
// lastHeader
const headerGetter = {
  keys: (carrier) => Object.keys(carrier || {}),
  get: (carrier, key) => {
    if (!carrier || carrier[key] === undefined || carrier[key] === null) return undefined;
    const value = Array.isArray(carrier[key]) ? carrier[key][carrier[key].length - 1] : carrier[key];
    return value === undefined || value === null ? undefined : value.toString('utf8');
  },
};

/**
 * The context to start the agent-call span in: Baton's span (from the record's traceparent) as remote parent; a
 * record without a valid traceparent gives the root context (the call starts a new trace).
 */
function parentContext(headers) {
  return propagation.extract(ROOT_CONTEXT, headers || {}, headerGetter);
}

/**
 * Starts the span of the receiving agent's call for `snapshot` (its decoded form: Avro object or JSON form, both
 * with the contract's field names), child of `parent`; end it when the call's answer is in.
 * operation: gen_ai.operation.name, default 'chat' ('invoke_agent' for a CLI agent); model: gen_ai.request.model;
 * provider: gen_ai.provider.name (e.g. 'openai', 'anthropic', 'gcp.gemini').
 */
function startAgentCall(snapshot, { operation = 'chat', model, provider } = {}, parent = ROOT_CONTEXT,
  tracer = trace.getTracer(TRACER)) {
  const attributes = { 'gen_ai.operation.name': operation };
  if (model) attributes['gen_ai.request.model'] = model;
  if (provider) attributes['gen_ai.provider.name'] = provider;
  if (snapshot.session_id) attributes['gen_ai.conversation.id'] = snapshot.session_id;
  if (snapshot.tenant_id) attributes['baton.tenant.id'] = snapshot.tenant_id;
  if (snapshot.handoff_id) attributes['baton.handoff.id'] = snapshot.handoff_id;
  if (snapshot.snapshot_id) attributes['baton.snapshot.id'] = snapshot.snapshot_id;
  return tracer.startSpan(model ? `${operation} ${model}` : operation, { kind: SpanKind.CLIENT, attributes }, parent);
}

/** The W3C headers (traceparent, tracestate) that carry `span` on the agent call's own HTTP request. */
function outgoingHeaders(span) {
  const carrier = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  return carrier;
}

module.exports = { parentContext, startAgentCall, outgoingHeaders };
