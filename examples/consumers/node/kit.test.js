// The kit's logic without a broker (node --test kit.test.js): the mapping of both snapshot forms, dedupe, the
// dead-letter file and the settings. Needs no npm package. Run by the Java test
// dev.baton.consumer.ConsumerKitsLogicTest; ConsumerKitsIT runs the kit against a broker.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');

const prompts = require('./prompts');
const receipts = require('./receipts');
const settings = require('./settings');
const { RecentIds, DeadLetterFile } = require('./delivery');

const TESTDATA = path.join(__dirname, '..', 'testdata');
const lines = (file) => fs.readFileSync(path.join(TESTDATA, file), 'utf8').split('\n').filter((l) => l);
const RAW = '{"repeat":1e3,"ratio":1.10,"big":123456789012345678901234567890,"name":"caf\\u00e9 \\"q\\" é",'
  + '"nested":{"arguments":{"a":[1,{"b":"}"}]}}}';
const dirs = [];
const tmp = () => {
  dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'kit-')));
  return dirs[dirs.length - 1];
};
test.after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

test('should map the JSON form with the arguments text as written', () => {
  const out = lines('json-form.jsonl').map((l) => JSON.stringify(prompts.forTarget(prompts.readSnapshotJson(l), 'qwen3')));
  assert.deepEqual(out, lines('prompts.jsonl'));
});

test('should give arguments as a string equal to the Avro form', () => {
  const line = lines('json-form.jsonl')[0];
  const avro = JSON.parse(line); // the Avro form holds the arguments' text
  avro.messages[1].tool_calls[0].arguments = RAW;
  avro.messages[1].tool_calls[1].arguments = '{}';
  const json = prompts.readSnapshotJson(line);
  const calls = prompts.chatRequest(json, 'm').messages[2].tool_calls;
  assert.deepEqual(calls.map((c) => c.function.arguments), [RAW, '{}']);
  assert.deepEqual(prompts.forTarget(json, 'm'), prompts.forTarget(avro, 'm'));
});

test('should serialize an arguments object of a plain parse as a string', () => {
  const snapshot = JSON.parse(lines('json-form.jsonl')[0]);
  const calls = prompts.chatRequest(snapshot, 'm').messages[2].tool_calls;
  assert.equal(typeof calls[0].function.arguments, 'string');
  assert.equal(calls[1].function.arguments, '{}');
});

const LEDGER_TEXT = '[call ledger: 15 calls in 2 entries, newest first; 1 older entry (1 calls) dropped]\n'
  + 'run_tests x12: newest seq 41 by coder, ERROR; 2 OK, 10 ERROR; args sha256 0d4bf368cf0c; narrated\n'
  + 'apply_patch x2: newest seq 17 by qwen, UNANSWERED; 1 OK, 1 UNANSWERED; args sha256 8f1fb7d30b09; not_shown';

test('should add the call ledger as one system message only when asked', () => {
  const ledger = JSON.parse(fs.readFileSync(path.join(TESTDATA, 'ledger.json'), 'utf8'));
  assert.equal(prompts.ledgerText(ledger), LEDGER_TEXT); // the Java and Python kits' text too
  const line = fs.readFileSync(path.join(TESTDATA, 'json-form.jsonl'), 'utf8').split('\n')[0];
  const snapshot = prompts.readSnapshotJson(line);
  const without = prompts.chatRequest(snapshot, 'm');
  assert.deepEqual(prompts.chatRequest(snapshot, 'm', true), without, 'no ledger: no message');
  snapshot.call_ledger = ledger;
  assert.deepEqual(prompts.chatRequest(snapshot, 'm'), without, 'off by default');
  const withLedger = prompts.chatRequest(snapshot, 'm', true);
  assert.equal(withLedger.messages.length, without.messages.length + 1);
  assert.deepEqual(withLedger.messages[1], { role: 'system', content: LEDGER_TEXT });
  assert.deepEqual(withLedger.messages.slice(2), without.messages.slice(1));
});

test('should see a remembered id once handled', () => {
  const ids = new RecentIds(10);
  assert.equal(ids.seen('a/s/h1'), false);
  ids.remember('a/s/h1');
  assert.equal(ids.seen('a/s/h1'), true);
});

test('should forget the least recently seen id beyond capacity', () => {
  const ids = new RecentIds(2);
  ids.remember('h1');
  ids.remember('h2');
  assert.equal(ids.seen('h1'), true); // h1 is now the most recent
  ids.remember('h3');
  assert.equal(ids.size, 2);
  assert.equal(ids.seen('h2'), false);
  assert.equal(ids.seen('h1'), true);
  assert.equal(ids.seen('h3'), true);
});

test('should remember nothing with capacity zero', () => {
  const ids = new RecentIds(0);
  ids.remember('h1');
  assert.equal(ids.seen('h1'), false);
});

test('should append the record and its error as one line', () => {
  const file = path.join(tmp(), 'dead.jsonl');
  new DeadLetterFile(file).write({ topic: 't', partition: 0, offset: '7', timestamp: '1700000000000',
    key: Buffer.from('acme/s1'), value: Buffer.from([0, 1]), error: 'Error: bad' });
  new DeadLetterFile(file).write({ topic: 't', partition: 1, offset: '8', timestamp: null, key: null, value: null,
    error: 'Error: no value' });
  const [first, second] = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(first, { topic: 't', partition: 0, offset: 7, timestamp: 1700000000000,
    key_base64: Buffer.from('acme/s1').toString('base64'), value_base64: 'AAE=', error: 'Error: bad' });
  assert.equal(second.value_base64, null);
});

test('should configure SASL_SSL with SCRAM and the cluster CA', () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'password'), 's3cret\n');
  fs.writeFileSync(path.join(dir, 'ca.crt'), '-----BEGIN CERTIFICATE-----\n');
  const s = settings.load({ BOOTSTRAP_SERVERS: 'kafka-0:9093,kafka-1:9093', SECURITY_PROTOCOL: 'sasl_ssl',
    SASL_USERNAME: 'consumer', SASL_PASSWORD_FILE: path.join(dir, 'password'), SSL_CA_LOCATION: path.join(dir, 'ca.crt') });
  const config = settings.kafkaConfig(s);
  assert.deepEqual(config.brokers, ['kafka-0:9093', 'kafka-1:9093']);
  assert.deepEqual(config.sasl, { mechanism: 'scram-sha-512', username: 'consumer', password: 's3cret' });
  assert.deepEqual(config.ssl, { ca: ['-----BEGIN CERTIFICATE-----\n'] });
});

test('should read a config file and let the environment win', () => {
  const file = path.join(tmp(), 'kit.conf');
  fs.writeFileSync(file, '# the cluster\nBOOTSTRAP_SERVERS = file:9093\nTOPIC=from-file\n\nGROUP_ID=g\n');
  const s = settings.load({ CONFIG_FILE: file, TOPIC: 'from-env' });
  assert.deepEqual([s.BOOTSTRAP_SERVERS, s.TOPIC, s.GROUP_ID], ['file:9093', 'from-env', 'g']);
});

test('should refuse an unknown name in the config file', () => {
  const file = path.join(tmp(), 'kit.conf');
  fs.writeFileSync(file, 'BOOTSTRAP_SERVER=kafka:9093\n');
  assert.throws(() => settings.load({ CONFIG_FILE: file }), /line 1.*BOOTSTRAP_SERVER/);
});

test('should refuse a CA file that cannot be read', () => {
  assert.throws(() => settings.load({ SECURITY_PROTOCOL: 'SSL', SSL_CA_LOCATION: '/nonexistent/ca.crt' }),
    /SSL_CA_LOCATION: cannot read \/nonexistent\/ca.crt/);
});

test('should refuse SASL without credentials', () => {
  assert.throws(() => settings.load({ SECURITY_PROTOCOL: 'SASL_SSL' }), settings.SettingsError);
});

test('should leave receipts off unless a receipts topic is set', () => {
  assert.equal(settings.load({}).RECEIPTS_TOPIC, '');
  const s = settings.load({ RECEIPTS_TOPIC: 'baton.handoff-receipts', FORMAT: 'json', RECEIVER_BUDGET_TOKENS: '9' });
  assert.deepEqual([s.RECEIPTS_TOPIC, s.RECEIVER_BUDGET_TOKENS], ['baton.handoff-receipts', '9']);
  for (const bad of [{ RECEIPTS_TOPIC: 'r' }, { RECEIPTS_TOPIC: 'r', FORMAT: 'avro' },
    { RECEIPTS_TOPIC: 'r', FORMAT: 'json', RECEIVER_BUDGET_TOKENS: '-1' }]) {
    assert.throws(() => settings.load(bad), settings.SettingsError);
  }
});

test('should take registry credentials from the URL or from settings', () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'ca.pem'), 'CA');
  let config = settings.registryConfig(settings.load({
    SCHEMA_REGISTRY_URL: 'https://kit%40acme:p%3Aw@registry:8081/apis/ccompat/v7/',
    SCHEMA_REGISTRY_CA_LOCATION: path.join(dir, 'ca.pem') }));
  assert.deepEqual(config.baseURLs, ['https://registry:8081/apis/ccompat/v7']);
  assert.deepEqual(config.basicAuthCredentials, { credentialsSource: 'USER_INFO', userInfo: 'kit@acme:p:w' });
  assert.deepEqual(config.createAxiosDefaults.httpsAgent.options.ca, ['CA']);
  config = settings.registryConfig(settings.load({ SCHEMA_REGISTRY_URL: 'http://registry:8081',
    SCHEMA_REGISTRY_USERNAME: 'u', SCHEMA_REGISTRY_PASSWORD: 'p' }));
  assert.deepEqual(config, { baseURLs: ['http://registry:8081'], basicAuthCredentials: { credentialsSource: 'USER_INFO', userInfo: 'u:p' } });
  assert.equal(settings.registryConfig(settings.load({})).basicAuthCredentials, undefined);
});

test('should send the receipts the Java and Python kits send for the same input', () => {
  const cases = JSON.parse(fs.readFileSync(path.join(TESTDATA, 'receipts.json'), 'utf8'));
  assert.ok(cases.length > 0);
  for (const c of cases) {
    const started = receipts.acknowledge(c.snapshot, c.receiver_model, c.budget_tokens, new Date(c.started_at),
      c.dialect ?? null);
    const ended = receipts.reportOutcome(started, c.outcome, c.tokens_spent);
    assert.equal(receipts.key(c.snapshot), c.key);
    assert.equal(receipts.toJson(started), c.started);
    assert.equal(receipts.toJson(ended), c.ended);
    assert.equal(started.outcome, null, 'the start receipt is left as it was');
  }
});

test('should refuse receipts the schema cannot hold', () => {
  const { snapshot } = JSON.parse(fs.readFileSync(path.join(TESTDATA, 'receipts.json'), 'utf8'))[0];
  assert.throws(() => receipts.acknowledge(snapshot, null, null, new Date('not a date')));
  assert.throws(() => receipts.acknowledge({ ...snapshot, content_sha256: null }, null, null, new Date(0)));
  const started = receipts.acknowledge(snapshot, null, null, new Date(0));
  for (const [outcome, tokens] of [['DONE', 1], ['FAILED', -1], ['FAILED', 1.5], ['FAILED', '1']]) {
    assert.throws(() => receipts.reportOutcome(started, outcome, tokens));
  }
});
