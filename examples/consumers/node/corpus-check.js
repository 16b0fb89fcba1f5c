// node corpus-check.js FILE: renders every LOCAL snapshot of a JSONL file of JSON-form snapshots in every
// chat-template profile through every template the profile claims (templates.js), and prints one JSON object of
// counts per template and per dialect: rendered, failed, and the first reasons. Exit 1 on any failure, 2 when the
// shared templates are missing (SHARED_DATA_DIR or <repo>/../shared).
'use strict';

const fs = require('fs');
const zlib = require('zlib');
const readline = require('readline');
const { readSnapshotJson } = require('./prompts');
const dialects = require('./dialects');
const templates = require('./templates');

const FIRST_REASONS = 3;

function tally(counts, key, result, snapshotId) {
  const c = counts[key] || (counts[key] = { rendered: 0, failed: 0, reasons: [] });
  if (result.ok) c.rendered += 1;
  else {
    c.failed += 1;
    if (c.reasons.length < FIRST_REASONS) c.reasons.push(`${snapshotId}: ${result.reason}`);
  }
}

// {snapshots, templates: {name: counts}, dialects: {dialect: counts}} over the lines of `input`.
async function checkCorpus(input, loaded) {
  const report = { snapshots: 0, templates: {}, dialects: {} };
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const snapshot = readSnapshotJson(line);
    if (snapshot.target === 'CLAUDE_CLI') continue;
    report.snapshots += 1;
    for (const profile of dialects.PROFILES) {
      const dialect = `chat-template:${profile}`;
      const { request } = dialects.request(snapshot, dialect);
      for (const t of loaded.filter((x) => x.profile === profile)) {
        const result = templates.check(t, request);
        tally(report.templates, t.name, result, snapshot.snapshot_id);
        tally(report.dialects, dialect, result, snapshot.snapshot_id);
      }
    }
  }
  return report;
}

async function main(args) {
  if (args.length !== 1) {
    console.error('usage: corpus-check.js FILE|-   (FILE may end in .gz)');
    return 2;
  }
  const shared = templates.sharedDir();
  if (!shared) {
    console.error('corpus-check: no shared receivers folder (set SHARED_DATA_DIR or put shared/ beside the repository)');
    return 2;
  }
  let input = args[0] === '-' ? process.stdin : fs.createReadStream(args[0]);
  if (args[0].endsWith('.gz')) input = input.pipe(zlib.createGunzip());
  input.setEncoding('utf8');
  const report = await checkCorpus(input, templates.loadTemplates(shared));
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return Object.values(report.templates).some((c) => c.failed > 0) ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    console.error(`corpus-check: ${e.message}`);
    process.exitCode = 1;
  });
}

module.exports = { checkCorpus };
