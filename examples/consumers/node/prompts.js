// The mapping of the contract's section 3, the same as the Java API dev.baton.consumer.SnapshotPrompts and
// ../python/prompts.py: framing.system_prompt and the brick (separated by a blank line) as the leading
// system message, then the snapshot's messages one-to-one (call_id -> id, tool -> function.name,
// arguments -> function.arguments).
//
// A snapshot comes in two forms, and both map to the same request:
// - Avro (decoded by consumer.js): `arguments` is a string, the compact JSON text Baton holds; used as is.
// - JSON (backfill output files, topics of `baton.format=json`): `arguments` is written as the JSON object itself.
//   OpenAI-compatible servers require `function.arguments` to be a string, so the object's exact text in the line
//   is used: readSnapshotJson() puts that text in place of the object. It is what the Avro form holds (Baton writes
//   it verbatim), so number literals such as 1e3 or 1.10 and escapes stay as the producer wrote them. A snapshot
//   parsed with plain JSON.parse still works: its objects are re-serialized (JSON.stringify), which re-spells them.
//
// Run as a program, it maps a JSONL file of JSON-form snapshots (e.g. `baton backfill` output) the way
// consumer.js maps the topic: node prompts.js FILE [MODEL] [--dialect NAME] (FILE `-` reads standard input;
// dialects.js and docs/receivers.md name the dialects; openai-chat, the default, is this file's chatRequest).
'use strict';

const fs = require('fs');
const readline = require('readline');

// The exact text of every object that is the value of a member named "arguments" (not looking inside one), in
// the order they appear in `text`, which must be valid JSON (JSON.parse it first).
function argumentsTexts(text) {
  const texts = [];
  const n = text.length;
  const stringEnd = (i) => { // i at the opening quote; the index after the closing one
    for (let j = i + 1; j < n; j += 1) {
      if (text[j] === '\\') j += 1;
      else if (text[j] === '"') return j + 1;
    }
    throw new SyntaxError('unterminated string');
  };
  const skipSpace = (i) => {
    let j = i;
    while (j < n && (text[j] === ' ' || text[j] === '\t' || text[j] === '\n' || text[j] === '\r')) j += 1;
    return j;
  };
  const objectEnd = (i) => { // i at "{"; the index after its "}"
    let depth = 0;
    for (let j = i; j < n;) {
      const ch = text[j];
      if (ch === '"') { j = stringEnd(j); continue; }
      if (ch === '{' || ch === '[') depth += 1;
      else if ((ch === '}' || ch === ']') && --depth === 0) return j + 1;
      j += 1;
    }
    throw new SyntaxError('unterminated object');
  };
  for (let i = 0; i < n;) {
    if (text[i] !== '"') { i += 1; continue; }
    const end = stringEnd(i);
    const colon = skipSpace(end);
    if (text[colon] === ':' && JSON.parse(text.slice(i, end)) === 'arguments') {
      const value = skipSpace(colon + 1);
      if (text[value] === '{') {
        const close = objectEnd(value);
        texts.push(text.slice(value, close));
        i = close;
        continue;
      }
    }
    i = end;
  }
  return texts;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// One JSON-form snapshot (a string), parsed, with every tool call's arguments object replaced by its exact text.
function readSnapshotJson(text) {
  const snapshot = JSON.parse(text);
  const texts = argumentsTexts(text);
  let k = 0;
  for (const m of snapshot.messages || []) {
    for (const c of m.tool_calls || []) {
      if (!isObject(c.arguments)) continue;
      const raw = texts[k];
      k += 1;
      // the texts are matched to the calls by order; a mismatch would be a member "arguments" elsewhere
      if (raw === undefined || JSON.stringify(JSON.parse(raw)) !== JSON.stringify(c.arguments)) {
        throw new Error(`arguments of call ${c.call_id} not found in the line`);
      }
      c.arguments = raw;
    }
  }
  return snapshot;
}

// function.arguments: a string, as OpenAI requires, whichever form the snapshot came in.
function argumentsText(args) {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

function systemText(systemPrompt, brick) {
  return brick ? `${systemPrompt}\n\n${brick}` : systemPrompt;
}

// The call ledger (docs/rendering.md, "Call ledger") as one system message's text, as the Java and Python kits
// write it: a heading, then one line per entry, newest first.
function ledgerText(ledger) {
  let text = `[call ledger: ${ledger.calls} calls in ${ledger.entries.length} entries, newest first`;
  const dropped = Number(ledger.dropped_entries);
  if (dropped > 0) {
    text += `; ${dropped} older ${dropped === 1 ? 'entry' : 'entries'} (${ledger.dropped_calls} calls) dropped`;
  }
  text += ']';
  for (const e of ledger.entries) {
    const counts = ['ok', 'error', 'cleared', 'unanswered'].filter((s) => Number(e[s]) !== 0)
      .map((s) => `${e[s]} ${s.toUpperCase()}`).join(', ');
    text += `\n${e.tool} x${e.count}: newest seq ${e.seq} by ${e.agent}, ${e.status}; ${counts}; `
      + `args sha256 ${e.arguments_sha256.slice(0, 12)}; ${e.visible}`;
  }
  return text;
}

// The request body; withLedger adds the snapshot's call ledger (when it has one) as a second system message.
function chatRequest(snapshot, model, withLedger = false) {
  const messages = [{ role: 'system', content: systemText(snapshot.framing.system_prompt, snapshot.brick) }];
  if (withLedger && snapshot.call_ledger != null) {
    messages.push({ role: 'system', content: ledgerText(snapshot.call_ledger) });
  }
  for (const m of snapshot.messages) {
    const out = { role: m.role };
    if (m.name != null) out.name = m.name;
    out.content = m.content;
    if (m.tool_calls && m.tool_calls.length > 0) {
      out.tool_calls = m.tool_calls.map((c) => ({
        id: c.call_id,
        type: 'function',
        function: { name: c.tool, arguments: argumentsText(c.arguments) },
      }));
    }
    if (m.tool_call_id != null) out.tool_call_id = m.tool_call_id;
    messages.push(out);
  }
  return { model, messages };
}

function cliPrompt(snapshot) {
  return systemText(snapshot.framing.system_prompt, snapshot.brick);
}

// One output line: chat_request for LOCAL targets, cli_prompt for CLAUDE_CLI targets.
function forTarget(snapshot, model, withLedger = false) {
  const line = { snapshot_id: snapshot.snapshot_id, target: snapshot.target };
  if (snapshot.target === 'CLAUDE_CLI') line.cli_prompt = cliPrompt(snapshot);
  else line.chat_request = chatRequest(snapshot, model, withLedger);
  return line;
}

async function main(argv) {
  const args = [...argv];
  let dialect = 'openai-chat';
  const at = args.indexOf('--dialect');
  if (at >= 0) [, dialect] = args.splice(at, 2);
  if (args.length < 1 || args.length > 2 || !dialect) {
    console.error('usage: prompts.js FILE|- [MODEL] [--dialect NAME]');
    return 2;
  }
  const model = args[1] || 'local-model';
  // required here, not at the top: dialects.js requires this module
  const line = (snapshot) => require('./dialects').forTarget(snapshot, dialect, { model });
  const input = args[0] === '-' ? process.stdin : fs.createReadStream(args[0], 'utf8');
  for await (const text of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (text.trim()) process.stdout.write(`${JSON.stringify(line(readSnapshotJson(text)))}\n`);
  }
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    console.error(`baton prompts: ${e.message}`);
    process.exitCode = 1;
  });
}

module.exports = {
  argumentsTexts, readSnapshotJson, argumentsText, systemText, ledgerText, chatRequest, cliPrompt, forTarget,
};
