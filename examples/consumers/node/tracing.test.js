// tracing.js against a loopback OTLP/HTTP JSON receiver (node --test tracing.test.js): the agent-call span continues
// the snapshot record's traceparent, named and attributed per the GenAI conventions. Needs the devDependencies
// (npm ci); without them it skips, except under CI=true where it fails. Run by dev.baton.consumer.ConsumerKitsLogicTest.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');

let otel;
try {
  otel = {
    api: require('@opentelemetry/api'),
    core: require('@opentelemetry/core'),
    base: require('@opentelemetry/sdk-trace-base'),
    resources: require('@opentelemetry/resources'),
    otlp: require('@opentelemetry/exporter-trace-otlp-http'),
  };
} catch (missing) {
  if (process.env.CI === 'true') throw missing;
  otel = null;
}
const skip = otel ? false : 'the OpenTelemetry devDependencies are not installed (npm ci)';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const BATON_SPAN = '00f067aa0ba902b7';
const SNAPSHOT = { snapshot_id: 'acme/s1/h1', tenant_id: 'acme', session_id: 's1', handoff_id: 'h1',
  messages: [{ role: 'USER', content: 'fix the build' }] };

// collects the spans of each POST /v1/traces (OTLP JSON encoding)
function receiver() {
  const spans = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans || []) {
        for (const ss of rs.scopeSpans || []) spans.push(...(ss.spans || []));
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, spans })));
}

async function traced(fn) {
  const { server, spans } = await receiver();
  const exporter = new otel.otlp.OTLPTraceExporter({ url: `http://127.0.0.1:${server.address().port}/v1/traces` });
  const provider = new otel.base.BasicTracerProvider({
    resource: otel.resources.resourceFromAttributes({ 'service.name': 'receiving-agent' }),
    spanProcessors: [new otel.base.SimpleSpanProcessor(exporter)],
  });
  otel.api.trace.setGlobalTracerProvider(provider);
  otel.api.propagation.setGlobalPropagator(new otel.core.W3CTraceContextPropagator());
  try {
    fn(require('./tracing'));
    await provider.forceFlush();
  } finally {
    await provider.shutdown();
    otel.api.trace.disable();
    otel.api.propagation.disable();
    server.close();
  }
  return spans;
}

const attributes = (span) => Object.fromEntries(span.attributes.map((a) => [a.key, Object.values(a.value)[0]]));

test('should continue the snapshot record\'s traceparent into the agent call\'s span', { skip }, async () => {
  let outgoing;
  const spans = await traced((tracing) => {
    const headers = { traceparent: Buffer.from(`00-${TRACE}-${BATON_SPAN}-01`), other: Buffer.from('x') };
    const call = tracing.startAgentCall(SNAPSHOT, { model: 'qwen3-8b', provider: 'openai' },
      tracing.parentContext(headers));
    outgoing = tracing.outgoingHeaders(call);
    call.end();
  });
  assert.equal(spans.length, 1);
  const [span] = spans;
  assert.equal(span.traceId, TRACE);
  assert.equal(span.parentSpanId, BATON_SPAN);
  assert.equal(span.name, 'chat qwen3-8b');
  assert.equal(span.kind, 3); // SPAN_KIND_CLIENT
  assert.deepEqual(attributes(span), {
    'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'qwen3-8b', 'gen_ai.provider.name': 'openai',
    'gen_ai.conversation.id': 's1', 'baton.tenant.id': 'acme', 'baton.handoff.id': 'h1',
    'baton.snapshot.id': 'acme/s1/h1',
  });
  assert.equal(outgoing.traceparent, `00-${TRACE}-${span.spanId}-01`);
  assert.ok(!JSON.stringify(span).includes('fix the build'));
});

test('should start a new trace when the record has no valid traceparent', { skip }, async () => {
  const spans = await traced((tracing) => {
    tracing.startAgentCall(SNAPSHOT, { operation: 'invoke_agent' },
      tracing.parentContext({ traceparent: `00-${'0'.repeat(32)}-${BATON_SPAN}-01` })).end();
  });
  assert.equal(spans.length, 1);
  assert.notEqual(spans[0].traceId, '0'.repeat(32));
  assert.ok(!spans[0].parentSpanId);
  assert.equal(spans[0].name, 'invoke_agent');
});
