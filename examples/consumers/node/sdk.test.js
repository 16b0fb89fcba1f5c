// Each dialect's request sent through its provider's official Node SDK (openai, @anthropic-ai/sdk, @google/genai)
// to a loopback server (127.0.0.1, port 0) that records the exact body and answers a minimal valid response
// (node --test sdk.test.js), for the fixtures and the shared vectors' snapshots. The recorded body must equal the
// dialect's JSON, except fields the SDK adds (listed in SDK_ADDS), and keep the provider's rules (each cited at its
// check). maxRetries 0; no other network.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('http');

// The SDKs come from npm ci: without them the tests skip, except under CI=true where a missing one fails them.
let sdks = null;
try {
  sdks = { OpenAI: require('openai'), Anthropic: require('@anthropic-ai/sdk'), GoogleGenAI: require('@google/genai').GoogleGenAI };
} catch (missing) {
  if (process.env.CI === 'true') throw missing;
}
const skip = sdks ? false : 'the providers\' SDKs are not installed (npm ci)';
const { OpenAI, Anthropic, GoogleGenAI } = sdks || {};
const dialects = require('./dialects');
const { FIXTURES, vectorSnapshots } = require('./fixtures');

// the hand-made fixtures and the LOCAL snapshots of the shared vectors (../testdata/dialects.jsonl); with
// BATON_SNAPSHOT_CORPUS (JSONL files of JSON-form snapshots, separated like PATH) the LOCAL snapshots of those files
// instead: the corpus of recorded agent runs (dev.baton.receivers.ReceiverDialectsOnCorpusTest sets it)
const { readSnapshotJson } = require('./prompts');
const corpusSnapshots = (files) => files.split(require('path').delimiter).filter(Boolean)
  .flatMap((f) => require('fs').readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()))
  .map((l) => readSnapshotJson(l)).filter((s) => s.target === 'LOCAL');
const SNAPSHOTS = process.env.BATON_SNAPSHOT_CORPUS ? corpusSnapshots(process.env.BATON_SNAPSHOT_CORPUS)
  : [...FIXTURES, ...vectorSnapshots().filter((s) => s.target === 'LOCAL')];

// Fields an SDK puts in the body beyond the request given to it (a new one shows up as a failure naming it):
// @google/genai sends an empty generationConfig (checked empty below); the others add none.
const SDK_ADDS = { 'openai-chat': [], 'openai-responses': [], 'anthropic-messages': [], gemini: ['generationConfig'] };

const REPLIES = {
  '/v1/chat/completions': { id: 'c', object: 'chat.completion', created: 0, model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] },
  '/v1/responses': { id: 'r', object: 'response', created_at: 0, status: 'completed', model: 'm', output: [] },
  '/v1/messages': { id: 'msg', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } },
  gemini: { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }] },
};

let server;
let base;
const bodies = [];
test.before(async () => {
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => { data += c; });
    req.on('end', () => {
      const path = req.url.split('?')[0];
      bodies.push({ path, body: JSON.parse(data) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(REPLIES[path] || REPLIES.gemini));
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}`;
});
test.after(() => server.close());

const last = () => bodies[bodies.length - 1];
const without = (body, fields) => Object.fromEntries(Object.entries(body).filter(([k]) => !fields.includes(k)));
// what a request is on the wire: JSON.stringify spells -0 as 0 (a call's arguments may hold -0; docs/receivers.md,
// "Arguments", on how Node spells numbers)
const wire = (request) => JSON.parse(JSON.stringify(request));

test('should send openai-chat and openai-responses through the openai SDK unchanged', { skip }, async () => {
  const client = new OpenAI({ apiKey: 'test', baseURL: `${base}/v1`, maxRetries: 0 });
  for (const s of SNAPSHOTS) {
    const chat = dialects.request(s, 'openai-chat', { model: 'm' }).request;
    await client.chat.completions.create(chat);
    assert.deepEqual(without(last().body, SDK_ADDS['openai-chat']), wire(chat));
    const responses = dialects.request(s, 'openai-responses', { model: 'm' }).request;
    await client.responses.create(responses);
    assert.equal(last().path, '/v1/responses');
    assert.deepEqual(without(last().body, SDK_ADDS['openai-responses']), wire(responses));
    // https://platform.openai.com/docs/guides/function-calling: a function_call_output answers a function_call
    // (by call_id) given before it
    const seen = new Set();
    for (const item of last().body.input) {
      if (item.type === 'function_call') seen.add(item.call_id);
      if (item.type === 'function_call_output') assert.ok(seen.has(item.call_id), `${s.snapshot_id}: ${item.call_id}`);
    }
  }
});

test('should send anthropic-messages through @anthropic-ai/sdk keeping the Messages API rules', { skip }, async () => {
  const client = new Anthropic({ apiKey: 'test', baseURL: base, maxRetries: 0 });
  for (const s of SNAPSHOTS) {
    const request = dialects.request(s, 'anthropic-messages', { model: 'm', maxTokens: 64 }).request;
    await client.messages.create(request);
    assert.equal(last().path, '/v1/messages');
    const { body } = last();
    assert.deepEqual(without(body, SDK_ADDS['anthropic-messages']), wire(request));
    // https://docs.anthropic.com/en/api/messages: user and assistant turns alternate, the first is user; the
    // request ends with a user turn (ours: with text)
    body.messages.forEach((m, i) => assert.equal(m.role, i % 2 === 0 ? 'user' : 'assistant', s.snapshot_id));
    assert.equal(body.messages[body.messages.length - 1].role, 'user');
    // https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use: tool_result blocks come
    // first in the next user message and answer every tool_use of the assistant message before it
    const ids = [];
    body.messages.forEach((m, i) => {
      const uses = m.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
      ids.push(...uses);
      if (uses.length > 0) {
        const results = body.messages[i + 1].content.slice(0, uses.length);
        assert.deepEqual(results.map((b) => b.type === 'tool_result' && b.tool_use_id), uses);
      }
      // https://docs.anthropic.com/en/api/messages: text content blocks must be non-empty
      m.content.filter((b) => b.type === 'text').forEach((b) => assert.notEqual(b.text, ''));
    });
    // tool_use.id: ^[a-zA-Z0-9_-]+$ (https://docs.anthropic.com/en/api/messages), unique in the request
    ids.forEach((id) => assert.match(id, /^[a-zA-Z0-9_-]+$/));
    assert.equal(new Set(ids).size, ids.length);
  }
});

test('should send gemini through @google/genai keeping generateContent\'s rules', { skip }, async () => {
  const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: base } });
  for (const s of SNAPSHOTS) {
    const request = dialects.request(s, 'gemini').request;
    await ai.models.generateContent({ model: 'm', contents: request.contents,
      config: { systemInstruction: request.systemInstruction } });
    const { path, body } = last();
    assert.match(path, /\/models\/m:generateContent$/);
    assert.deepEqual(without(body, SDK_ADDS.gemini), wire(request));
    assert.deepEqual(body.generationConfig || {}, {});
    // https://ai.google.dev/gemini-api/docs/function-calling: turns alternate user/model; a model turn of function
    // calls follows a user turn, and the next user turn begins with their responses, in the calls' order
    body.contents.forEach((c, i) => assert.equal(c.role, i % 2 === 0 ? 'user' : 'model', s.snapshot_id));
    body.contents.forEach((c, i) => {
      const calls = c.parts.filter((p) => p.functionCall).map((p) => p.functionCall.name);
      if (calls.length === 0) return;
      assert.equal(body.contents[i - 1].role, 'user');
      const responses = body.contents[i + 1].parts.slice(0, calls.length);
      assert.deepEqual(responses.map((p) => p.functionResponse && p.functionResponse.name), calls);
    });
    assert.ok(body.contents[body.contents.length - 1].parts.some((p) => p.text), 'ends with a user prompt');
  }
});
