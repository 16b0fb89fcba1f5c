// The dialects of docs/receivers.md (node --test dialects.test.js): the shared test vectors
// (../testdata/dialects.jsonl, when present) compared as parsed JSON values, and the promises that hold in every
// dialect, checked on the fixtures.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const dialects = require('./dialects');
const prompts = require('./prompts');
const { FIXTURES } = require('./fixtures');

const VECTORS = path.join(__dirname, '..', 'testdata', 'dialects.jsonl');
const byId = (id) => FIXTURES.find((s) => s.snapshot_id === `acme/s/${id}`);

test('should reproduce every shared test vector', { skip: !fs.existsSync(VECTORS) && 'no ../testdata/dialects.jsonl yet' }, () => {
  const cases = fs.readFileSync(VECTORS, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  assert.ok(cases.length > 0);
  for (const c of cases) {
    const snapshot = typeof c.snapshot === 'string' ? prompts.readSnapshotJson(c.snapshot) : c.snapshot;
    const options = { model: c.options && c.options.model, maxTokens: c.options && c.options.max_tokens };
    const built = dialects.request(snapshot, c.dialect, JSON.parse(JSON.stringify(options)));
    const got = { request: built.request, id_map: built.idMap };
    const expected = { request: c.expected.request, id_map: c.expected.id_map || [] };
    assert.deepEqual(JSON.parse(JSON.stringify(got)), expected, `${c.name}: ${c.reason}`);
  }
});

test('should keep openai-chat byte for byte as prompts.js builds it', () => {
  for (const s of FIXTURES) assert.deepEqual(dialects.request(s, 'openai-chat', { model: 'm' }).request, prompts.chatRequest(s, 'm'));
});

test('should alternate anthropic turns from user to user with every tool_use answered first', () => {
  for (const s of FIXTURES) {
    const { messages } = dialects.request(s, 'anthropic-messages').request;
    messages.forEach((m, i) => assert.equal(m.role, i % 2 === 0 ? 'user' : 'assistant', s.snapshot_id));
    assert.equal(messages[messages.length - 1].role, 'user');
    assert.ok(messages[messages.length - 1].content.some((b) => b.type === 'text'));
    const ids = [];
    messages.forEach((m, i) => {
      for (const b of m.content) if (b.type === 'text') assert.notEqual(b.text, '');
      const uses = m.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
      ids.push(...uses);
      if (uses.length > 0) {
        const next = messages[i + 1].content.slice(0, uses.length);
        assert.deepEqual(next.map((b) => b.tool_use_id), uses, s.snapshot_id);
      }
    });
    ids.forEach((id) => assert.match(id, /^[a-zA-Z0-9_-]+$/));
    assert.equal(new Set(ids).size, ids.length);
  }
});

test('should map reused and invalid ids deterministically and report them', () => {
  const reused = dialects.request(byId('reused-ids'), 'anthropic-messages');
  assert.deepEqual(reused.idMap, [{ position: 2, original: 'call_0', mapped: 'baton_2' }]);
  const mistral = dialects.request(byId('reused-ids'), 'chat-template:mistral-tools');
  assert.deepEqual(mistral.idMap.map((e) => e.mapped), ['b00000001', 'b00000002']);
  const tools = mistral.request.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
  assert.deepEqual(tools, ['b00000001', 'b00000002']);
  const invalid = dialects.request(byId('unicode'), 'anthropic-messages');
  assert.deepEqual(invalid.idMap, [{ position: 1, original: 'id with space', mapped: 'baton_1' }]);
  assert.deepEqual(dialects.request(byId('reused-ids'), 'gemini').idMap, []);
  assert.deepEqual(dialects.request(byId('reused-ids'), 'openai-responses').idMap,
    [{ position: 2, original: 'call_0', mapped: 'baton_2' }]);
});

test('should answer gemini calls with the first parts of the next user turn, in order', () => {
  const { contents } = dialects.request(byId('parallel-calls'), 'gemini').request;
  contents.forEach((c, i) => assert.equal(c.role, i % 2 === 0 ? 'user' : 'model'));
  const model = contents.find((c) => c.parts.some((p) => p.functionCall));
  const next = contents[contents.indexOf(model) + 1];
  assert.deepEqual(next.parts.slice(0, 2).map((p) => p.functionResponse.name), ['read_file', 'list_dir']);
  assert.deepEqual(model.parts.map((p) => Object.keys(p)[0]), ['text', 'functionCall', 'functionCall']);
});

test('should never turn another agent\'s text into the receiver\'s own call, and attribute it', () => {
  for (const dialect of dialects.DIALECTS.filter((d) => d !== 'openai-chat')) {
    const text = JSON.stringify(dialects.request(byId('plain'), dialect).request);
    assert.ok(text.includes('[qwen-coder said:]\\nI looked at it.'), dialect);
    assert.ok(!/tool_use|functionCall|function_call|tool_calls/.test(text), dialect);
  }
});

test('should keep every message\'s text in order in every dialect', () => {
  for (const s of FIXTURES) {
    for (const dialect of dialects.DIALECTS) {
      const text = JSON.stringify(dialects.request(s, dialect).request);
      let at = 0;
      for (const m of s.messages.filter((x) => x.content)) {
        const piece = JSON.stringify(dialect.endsWith('alternating') && m.role === 'tool' ? dialects.escape(m.content) : m.content).slice(1, -1);
        const found = text.indexOf(piece, at);
        assert.ok(found >= 0, `${s.snapshot_id} ${dialect}: ${m.content} missing or out of order`);
        at = found;
      }
    }
  }
});

test('should split llama3-json calls into call, result pairs', () => {
  const { messages } = dialects.request(byId('parallel-calls'), 'chat-template:llama3-json').request;
  const shape = messages.map((m) => (m.tool_calls ? `call:${m.tool_calls[0].id}` : m.role === 'tool' ? `result:${m.tool_call_id}` : m.role));
  assert.deepEqual(shape.slice(2, 7), ['assistant', 'call:c:1', 'result:c:1', 'call:c:2', 'result:c:2']);
});

test('should escape own calls and results as text in alternating', () => {
  const { messages } = dialects.request(byId('narration-first'), 'chat-template:alternating').request;
  const text = messages.map((m) => m.content).join('\n');
  assert.ok(text.includes('[claude-opus called run_tests({"k":1e3})]'));
  assert.ok(text.includes('[result: \\[ok]\n\\(done)]'));
  assert.ok(messages[0].content.includes(dialects.NOTES.ownCallsAsText));
  messages.slice(1).forEach((m, i) => assert.equal(m.role, i % 2 === 0 ? 'user' : 'assistant'));
});

test('should write the kit\'s output line per dialect', () => {
  const s = byId('reused-ids');
  assert.deepEqual(dialects.forTarget(s, 'openai-chat', { model: 'm' }), prompts.forTarget(s, 'm'));
  const line = dialects.forTarget(s, 'anthropic-messages', { model: 'm' });
  assert.deepEqual(Object.keys(line), ['snapshot_id', 'target', 'dialect', 'request', 'id_map']);
  assert.deepEqual(Object.keys(dialects.forTarget(byId('plain'), 'gemini')), ['snapshot_id', 'target', 'dialect', 'request']);
  const cli = { ...s, target: 'CLAUDE_CLI', messages: [] };
  assert.deepEqual(dialects.forTarget(cli, 'gemini'), prompts.forTarget(cli, 'local-model'));
  assert.throws(() => dialects.request(s, 'chat-template:nope'), /unknown dialect/);
});

test('should print one line per LOCAL snapshot and dialect as a program', () => {
  const file = path.join(__dirname, '..', 'testdata', 'json-form.jsonl');
  const out = execFileSync(process.execPath, [path.join(__dirname, 'dialects.js'), file], { encoding: 'utf8' })
    .trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(out.map((l) => l.dialect), dialects.DIALECTS);
  out.forEach((l) => assert.deepEqual(Object.keys(l), ['snapshot_id', 'dialect', 'request', 'id_map']));
});
