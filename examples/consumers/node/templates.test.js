// The chat-template profiles rendered through the real templates docs/receivers.md claims (node --test
// templates.test.js): every fixture and the demo snapshots render in every claimed template with nothing lost, and
// the obvious request (openai-chat without names) does not, so the check can fail. Reads the templates in place
// from <repo>/../shared (SHARED_DATA_DIR overrides): skips when it is missing, fails under CI=true.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { Readable } = require('stream');

const dialects = require('./dialects');
const { FIXTURES, vectorCases } = require('./fixtures');

// @huggingface/jinja comes from npm ci: without it the tests skip, except under CI=true where it fails them.
let templates = null;
let checkCorpus = null;
try {
  templates = require('./templates');
  ({ checkCorpus } = require('./corpus-check'));
} catch (missing) {
  if (process.env.CI === 'true') throw missing;
}
const shared = templates && templates.sharedDir();
if (!shared && process.env.CI === 'true') throw new Error('CI=true and the shared folder (../shared or SHARED_DATA_DIR) is missing');
const skip = !templates ? '@huggingface/jinja is not installed (npm ci)'
  : shared ? false : 'no shared folder (../shared or SHARED_DATA_DIR)';
const loaded = shared ? templates.loadTemplates(shared) : [];
const DEMO = path.join(__dirname, '..', '..', '..', 'cli', 'src', 'test', 'resources', 'viewer', 'demo-snapshots.jsonl.gz');

test('should load every template docs/receivers.md claims', { skip }, () => {
  assert.equal(loaded.length, 13);
  assert.deepEqual([...new Set(loaded.map((t) => t.profile))], dialects.PROFILES);
});

test('should render every fixture in every claimed template with nothing lost', { skip }, () => {
  const failures = [];
  for (const snapshot of FIXTURES) {
    for (const profile of dialects.PROFILES) {
      const { request } = dialects.request(snapshot, `chat-template:${profile}`);
      for (const t of loaded.filter((x) => x.profile === profile)) {
        const result = templates.check(t, request);
        if (!result.ok) failures.push(`${snapshot.snapshot_id} ${t.name}: ${result.reason}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

test('should render every shared vector of a chat-template profile in its claimed templates', { skip }, () => {
  // the Java reference's requests (../testdata/dialects.jsonl) as they are, not the Node kit's
  const cases = vectorCases().filter((c) => c.dialect.startsWith('chat-template:') && c.expected.request);
  assert.ok(cases.length > 0);
  const failures = [];
  let renders = 0;
  for (const c of cases) {
    for (const t of loaded.filter((x) => `chat-template:${x.profile}` === c.dialect)) {
      renders += 1;
      const result = templates.check(t, c.expected.request);
      if (!result.ok) failures.push(`${c.name} ${t.name}: ${result.reason}`);
    }
  }
  assert.ok(renders >= 13 * 21, `${renders} renders`);
  assert.deepEqual(failures, []);
});

test('should fail the obvious request in the strict templates', { skip }, () => {
  const failed = new Set();
  for (const snapshot of FIXTURES) {
    const { request } = dialects.request(snapshot, 'openai-chat');
    request.messages.forEach((m) => { delete m.name; });
    for (const t of loaded) if (!templates.check(t, request).ok) failed.add(t.name);
  }
  for (const name of ['tool_chat_template_mistral', 'tool_chat_template_llama3.1_json', 'llama-3-instruct', 'gemma-it']) {
    assert.ok(failed.has(name), `${name} accepted the obvious request`);
  }
});

test('should parse tool call arguments into objects as vLLM does', { skip: !templates && skip }, () => {
  const request = { messages: [{ role: 'assistant', content: '', tool_calls: [
    { id: 'a', type: 'function', function: { name: 't', arguments: '{"x":1}' } },
    { id: 'b', type: 'function', function: { name: 't', arguments: '' } }] }, { role: 'user', content: 'u', tool_calls: [] }] };
  const [m] = templates.vllmMessages(request);
  assert.deepEqual(m.tool_calls.map((c) => c.function.arguments), [{ x: 1 }, {}]);
  assert.deepEqual(templates.vllmMessages(request, 'openai')[1].content, [{ type: 'text', text: 'u' }]);
  assert.deepEqual(templates.toolsOf(request).map((t) => t.function.name), ['t']);
});

test('should render the demo snapshots in every profile', { skip: skip || (!fs.existsSync(DEMO) && 'no demo snapshots') }, async () => {
  const report = await checkCorpus(Readable.from([zlib.gunzipSync(fs.readFileSync(DEMO)).toString('utf8')]), loaded);
  assert.ok(report.snapshots > 0);
  for (const [name, c] of Object.entries(report.templates)) assert.equal(c.failed, 0, `${name}: ${c.reasons}`);
});
