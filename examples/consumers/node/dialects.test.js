// The dialects of docs/receivers.md (node --test dialects.test.js): the shared test vectors
// (../testdata/dialects.jsonl, written by the Java reference) compared as parsed JSON values, the promises that hold
// in every dialect, checked on the fixtures, and `node dialects.js FILE` against the Python kit's dialects.py.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const os = require('os');
const { execFileSync } = require('child_process');

const dialects = require('./dialects');
const prompts = require('./prompts');
const { FIXTURES, vectorCases, vectorSnapshots, snapshot, sys, user, other, own, result } = require('./fixtures');

const byId = (id) => FIXTURES.find((s) => s.snapshot_id === `acme/s/${id}`);

// A JSON-form snapshot line of a snapshot whose arguments are exact texts (each written as it is).
function jsonFormLine(snapshot) {
  const raws = [];
  const copy = { ...snapshot, messages: snapshot.messages.map((m) => ({ ...m,
    tool_calls: (m.tool_calls || []).map((c) => ({ ...c, arguments: `\u0000${raws.push(c.arguments) - 1}\u0000` })),
  })) };
  return JSON.stringify(copy).replace(/"\\u0000(\d+)\\u0000"/g, (all, i) => raws[Number(i)]);
}

// Every distinct snapshot of the vectors (LOCAL ones, and a CLAUDE_CLI one that dialects.js FILE skips) as a
// JSONL file of the JSON form; `local` the ids of the LOCAL ones, in order.
function vectorSnapshotsFile() {
  const snapshots = vectorSnapshots();
  assert.ok(snapshots.some((s) => s.target === 'CLAUDE_CLI'));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-dialects-')), 'snapshots.jsonl');
  fs.writeFileSync(file, snapshots.map((s) => `${jsonFormLine(s)}\n`).join(''));
  return { file, local: snapshots.filter((s) => s.target === 'LOCAL').map((s) => s.snapshot_id) };
}

const runLines = (command, args) => execFileSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20 })
  .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

test('should reproduce every shared test vector', () => {
  // the vectors are the Java reference's output (DialectVectorsTest); compared as parsed JSON values, so a number
  // literal the Node kit re-spells (1e3 as 1000 in anthropic input / gemini args) compares equal (docs/receivers.md,
  // "Arguments")
  const cases = vectorCases();
  assert.ok(cases.length >= 198, `${cases.length} vectors`);
  const differ = [];
  for (const c of cases) {
    const options = { model: c.options.model, maxTokens: c.options.max_tokens };
    const got = JSON.parse(JSON.stringify(dialects.forTarget(c.snapshot, c.dialect, options)));
    try {
      assert.deepStrictEqual(got, c.expected);
    } catch (e) {
      differ.push(`${c.name} / ${c.dialect} (${c.reason}):\n${e.message}`);
    }
  }
  assert.deepEqual(differ, [], `${differ.length} of ${cases.length} vectors differ`);
});

test('should leave out empty messages and refuse named calls and unanswered results', () => {
  const s = snapshot('gaps', [user('Go.'), sys(''), own(''), other('qwen-coder', ''), own('', ['c1', 'run', '{}']),
    result('c1', ''), user('')]);
  const anthropic = dialects.request(s, 'anthropic-messages').request.messages;
  assert.deepEqual(anthropic.map((m) => m.content.map((b) => b.type)),
    [['text'], ['tool_use'], ['tool_result', 'text']]);
  assert.equal(dialects.request(s, 'openai-responses').request.input.length, 3);
  const named = snapshot('named-calls', [user('Go.'),
    { ...other('qwen-coder', 'x'), tool_calls: [{ call_id: 'c1', tool: 't', arguments: '{}' }] }]);
  const stray = snapshot('stray-result', [user('Go.'), own('', ['c1', 'run', '{}']), result('c1', 'a'),
    result('c1', 'b')]);
  const elsewhere = snapshot('result-of-earlier', [own('', ['c1', 'run', '{}']), result('c1', 'a'),
    own('', ['c2', 'run', '{}']), result('c1', 'b')]);
  for (const dialect of dialects.DIALECTS.filter((d) => d !== 'openai-chat')) {
    assert.throws(() => dialects.request(named, dialect), /carries tool calls/, dialect);
    assert.throws(() => dialects.request(stray, dialect), /no unanswered call/, dialect);
    assert.throws(() => dialects.request(elsewhere, dialect), /no unanswered call/, dialect);
  }
});

test('should open llama3-json with the narrated-lines line or the continuation line', () => {
  const narrated = dialects.request(byId('narration-first'), 'chat-template:llama3-json').request.messages;
  assert.deepEqual(narrated[1], { role: 'user', content: '(hand-off: the conversation opens with narrated lines)' });
  assert.equal(narrated[2].role, 'system');
  const empty = dialects.request(byId('empty'), 'chat-template:llama3-json').request.messages;
  assert.deepEqual(empty.slice(1), [{ role: 'user', content: '(hand-off: continue from here)' }]);
});

test('should add mistral-tools fillers only where the text messages would not alternate', () => {
  const shape = (s) => dialects.request(s, 'chat-template:mistral-tools').request.messages.slice(1)
    .map((m) => (m.tool_calls ? 'calls' : `${m.role}${m.content === '' ? '(empty)' : ''}`));
  // an own text, then the next unit's calls, then an own text: the empty user turn before the calls
  assert.deepEqual(shape(byId('text-then-call')),
    ['user', 'assistant', 'user(empty)', 'calls', 'tool', 'assistant', 'user']);
  // user, calls, result, user: the filtered sequence (calls and results aside) is user, user: an empty reply
  assert.deepEqual(shape(byId('calls-only-then-user')), ['user', 'calls', 'tool', 'assistant(empty)', 'user']);
  // user, own text, the next unit's calls, result, user: already alternating (user, assistant, user), nothing added
  const basic = snapshot('basic', [user('Go.'), own('Plan.'), own('', ['c1', 'run', '{}']), result('c1', 'ok'),
    user('On.')]);
  assert.deepEqual(shape(basic), ['user', 'assistant', 'calls', 'tool', 'user']);
  // an own text with its own calls, then another own text: the empty user turn right before the second text
  const s = snapshot('same-unit', [user('Go.'), own('Plan.', ['c1', 'run', '{}']), result('c1', 'ok'), own('Done.')]);
  assert.deepEqual(shape(s), ['user', 'assistant', 'calls', 'tool', 'user(empty)', 'assistant', 'user']);
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
  // Responses: any non-empty id is kept (docs/receivers.md, "Details the kits share"), an empty one is not
  const empty = snapshot('empty-id', [user('Go.'), own('', ['', 'run', '{}'], ['x y', 'run', '{}']), result('', 'a'),
    result('x y', 'b')]);
  const responses = dialects.request(empty, 'openai-responses');
  assert.deepEqual(responses.idMap, [{ position: 1, original: '', mapped: 'baton_1' }]);
  assert.deepEqual(responses.request.input.filter((i) => i.call_id).map((i) => i.call_id),
    ['baton_1', 'x y', 'baton_1', 'x y']);
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
  const { file, local } = vectorSnapshotsFile();
  const out = runLines(process.execPath, [path.join(__dirname, 'dialects.js'), file]);
  assert.deepEqual(out.map((l) => `${l.snapshot_id} ${l.dialect}`),
    local.flatMap((id) => dialects.DIALECTS.map((d) => `${id} ${d}`)));
  out.forEach((l) => assert.deepEqual(Object.keys(l), ['snapshot_id', 'dialect', 'request', 'id_map']));
});

// A direct cross-kit check: the Python kit's program on the same file prints the same lines (parsed JSON values).
const PYTHON = '/usr/bin/python3';
if (!fs.existsSync(PYTHON) && process.env.CI === 'true') throw new Error(`CI=true and ${PYTHON} is missing`);
const noPython = !fs.existsSync(PYTHON) && `no ${PYTHON}`;
test('should print the same lines as the Python kit\'s dialects.py', { skip: noPython }, () => {
  const { file, local } = vectorSnapshotsFile();
  const node = runLines(process.execPath, [path.join(__dirname, 'dialects.js'), file]);
  const python = runLines(PYTHON, [path.join(__dirname, '..', 'python', 'dialects.py'), file]);
  assert.equal(python.length, local.length * dialects.DIALECTS.length);
  assert.equal(node.length, python.length);
  node.forEach((line, i) => assert.deepStrictEqual(line, python[i], `${line.snapshot_id} ${line.dialect}`));
});

test('should send no reasoning, even from a snapshot whose messages carry reasoning fields', () => {
  // docs/receivers.md, "Reasoning": only the provider that wrote a reasoning block can verify it; Baton's snapshots
  // hold none, and a snapshot of another form that had some does not pass it on
  for (const s of vectorSnapshots().filter((v) => v.target === 'LOCAL')) {
    const withReasoning = { ...s, messages: s.messages.map((m) => ({ ...m, reasoning_content: 'SENDER-REASONING',
      thinking: { signature: 'c2ln' } })) };
    for (const d of dialects.DIALECTS) {
      const text = JSON.stringify(dialects.request(withReasoning, d, { model: 'm' }).request);
      assert.ok(!text.includes('SENDER-REASONING') && !text.includes('c2ln'), `${s.snapshot_id} ${d}`);
      assert.doesNotMatch(text, /"(thinking|redacted_thinking|reasoning|thoughtSignature)"/, `${s.snapshot_id} ${d}`);
    }
  }
});
