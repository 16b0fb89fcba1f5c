// The receiver dialects of docs/receivers.md: one snapshot, the request each kind of receiver accepts (the same
// JSON value as the Java kit's dev.baton.consumer.dialect and ../python/dialects.py; checked on
// ../testdata/dialects.jsonl). A pure function of the snapshot, the dialect and two options (model, maxTokens).
//
// Works on both snapshot forms (Avro-decoded, and JSON read by prompts.readSnapshotJson): a call's arguments are
// taken as their exact text (prompts.argumentsText) and parsed with JSON.parse only where a dialect wants an object
// (anthropic-messages `input`, gemini `args`), which re-spells literals a JavaScript number cannot hold exactly.
//
// Run as a program: node dialects.js FILE prints, for every LOCAL snapshot of a JSONL file of JSON-form snapshots
// and every dialect in the document's order, one line {"snapshot_id","dialect","request","id_map"}.
'use strict';

const fs = require('fs');
const readline = require('readline');
const prompts = require('./prompts');

const PROFILES = ['chatml-tools', 'single-system', 'llama3-json', 'mistral-tools', 'alternating'];
// The document's order (docs/receivers.md, the dialects table and the profiles table).
const DIALECTS = Object.freeze(['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini',
  ...PROFILES.map((p) => `chat-template:${p}`)]);
const DEFAULT_MAX_TOKENS = 4096;

const NOTES = Object.freeze({
  movedNarration: 'Narrated lines (lines that start with "[" or "(": other agents\' tool calls and results, system '
    + 'notes and markers of cut ranges, written by the hand-off service) appear inside user turns, because this '
    + 'interface allows no system messages within the conversation; they are not the user\'s words.',
  attributedText: 'Text written by another agent appears in an assistant turn after a line "[NAME said:]" naming '
    + 'that agent; it is not your own text.',
  ownCallsAsText: 'Your own earlier tool calls appear as lines "[NAME called TOOL(ARGUMENTS)]" in your turns, and '
    + 'their results as "[result: …]" lines in the following user turn.',
});
const OPENS_WITH_ASSISTANT = '(hand-off: the conversation opens with an assistant turn)';
const CONTINUE = '(hand-off: continue from here)';

// ---- shared steps -------------------------------------------------------------------------------------------

// The snapshot's messages as units (docs/receivers.md, "Shared steps"); own calls with their arguments' text.
function unitsOf(snapshot) {
  return (snapshot.messages || []).map((m) => {
    const content = m.content == null ? '' : m.content;
    if (m.role === 'system') return { kind: 'narration', content };
    if (m.role === 'user') return { kind: 'user', content };
    if (m.role === 'tool') return { kind: 'result', content, callId: m.tool_call_id };
    if (m.role === 'assistant' && m.name != null) return { kind: 'other', content, name: m.name };
    if (m.role === 'assistant') {
      const calls = (m.tool_calls || []).map((c) => ({ id: c.call_id, tool: c.tool,
        args: prompts.argumentsText(c.arguments) }));
      return { kind: 'own', content, calls };
    }
    throw new Error(`unknown role ${m.role}`);
  });
}

function systemText(snapshot, notes) {
  return [snapshot.framing.system_prompt, ...notes, snapshot.brick].filter((p) => p).join('\n\n');
}

// The notes a dialect adds, in the document's order, each only when the snapshot has what it explains.
function notesFor(units, { moved = false, attributed = false, callsAsText = false }) {
  const has = (kind) => units.some((u) => u.kind === kind);
  const notes = [];
  if (moved && has('narration')) notes.push(NOTES.movedNarration);
  if (attributed && has('other')) notes.push(NOTES.attributedText);
  if (callsAsText && units.some((u) => u.kind === 'own' && u.calls.length > 0)) notes.push(NOTES.ownCallsAsText);
  return notes;
}

const attributed = (u) => `[${u.name} said:]\n${u.content}`;

// Rule R2's escape: one more leading "\" on every line that starts with "[", "(", "…" or "\".
function escape(text) {
  return text.replace(/(^|\r\n|\r|\n)(?=[[(…\\])/g, '$1\\');
}

// Call ids: every own call gets the id the dialect sends (kept when valid and unused, else newId(n)), and every
// result the id of the call it answers: the call of that id in the assistant message that precedes it (a run that
// reused ids names the same id twice; adjacency says which call each answers). Mutates the units' calls and
// results (id -> sent id); returns the id_map. `valid` null: no id is changed.
function assignIds(units, valid, newId) {
  const idMap = [];
  if (valid == null) {
    units.forEach((u) => {
      if (u.kind === 'own') u.calls.forEach((c) => { c.sent = c.id; });
      if (u.kind === 'result') u.sent = u.callId;
    });
    return idMap;
  }
  const calls = units.filter((u) => u.kind === 'own').flatMap((u) => u.calls);
  // the ids kept: valid, and not the id of an earlier call of the request
  const seen = new Set();
  for (const c of calls) {
    c.keep = c.id != null && valid(c.id) && !seen.has(c.id);
    seen.add(c.id);
  }
  const taken = new Set(calls.filter((c) => c.keep).map((c) => c.id));
  calls.forEach((c, index) => {
    if (c.keep) {
      c.sent = c.id;
      return;
    }
    let n = index + 1;
    while (taken.has(newId(n))) n += 1;
    c.sent = newId(n);
    taken.add(c.sent);
    idMap.push({ position: index + 1, original: c.id, mapped: c.sent });
  });
  let pending = []; // the preceding assistant message's calls not yet answered
  for (const u of units) {
    if (u.kind === 'own') pending = [...u.calls];
    else if (u.kind === 'result') {
      const at = pending.findIndex((c) => c.id === u.callId);
      if (at >= 0) {
        u.sent = pending[at].sent;
        u.call = pending[at];
        pending.splice(at, 1);
      } else u.sent = u.callId; // answers no call of the preceding message: left as it is
    }
  }
  return idMap;
}

// The tool of the call a result answers (gemini's functionResponse.name), matched like assignIds.
function linkResults(units) {
  let pending = [];
  for (const u of units) {
    if (u.kind === 'own') pending = [...u.calls];
    else if (u.kind === 'result' && !u.call) {
      const at = pending.findIndex((c) => c.id === u.callId);
      if (at >= 0) u.call = pending.splice(at, 1)[0];
    }
  }
}

const batonId = (n) => `baton_${n}`;
const mistralId = (n) => `b${n.toString(36).padStart(8, '0')}`;

// ---- strict two-role turns (anthropic-messages, gemini) ---------------------------------------------------

// Units as turns of two roles ("user"/"assistant"), each a list of blocks {kind: text|call|result, ...}; the
// first turn a user turn, the last a user turn with text (docs/receivers.md, "Turns of strict dialects").
function strictTurns(units) {
  const turns = [];
  const push = (role, block) => {
    if (block.kind === 'text' && block.text === '') return; // an empty text is no block (Anthropic refuses them)
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.blocks.push(block);
    else turns.push({ role, blocks: [block] });
  };
  for (const u of units) {
    if (u.kind === 'narration' || u.kind === 'user') push('user', { kind: 'text', text: u.content });
    else if (u.kind === 'other') push('assistant', { kind: 'text', text: attributed(u) });
    else if (u.kind === 'own') {
      push('assistant', { kind: 'text', text: u.content });
      u.calls.forEach((c) => push('assistant', { kind: 'call', call: c }));
    } else push('user', { kind: 'result', result: u });
  }
  if (turns.length > 0 && turns[0].role === 'assistant') {
    turns.unshift({ role: 'user', blocks: [{ kind: 'text', text: OPENS_WITH_ASSISTANT }] });
  }
  const last = turns[turns.length - 1];
  if (!last || last.role === 'assistant') turns.push({ role: 'user', blocks: [{ kind: 'text', text: CONTINUE }] });
  else if (!last.blocks.some((b) => b.kind === 'text')) last.blocks.push({ kind: 'text', text: CONTINUE });
  return turns;
}

// ---- the dialects -------------------------------------------------------------------------------------------

function openaiChat(snapshot, { model }) {
  return { request: prompts.chatRequest(snapshot, model), idMap: [] };
}

function openaiResponses(snapshot, { model }) {
  const units = unitsOf(snapshot);
  const idMap = assignIds(units, () => true, batonId);
  const input = [];
  const message = (role, content) => input.push({ type: 'message', role, content });
  for (const u of units) {
    if (u.kind === 'narration') message('system', u.content);
    else if (u.kind === 'user') message('user', u.content);
    else if (u.kind === 'other') message('assistant', attributed(u));
    else if (u.kind === 'own') {
      if (u.content !== '') message('assistant', u.content);
      u.calls.forEach((c) => input.push({ type: 'function_call', call_id: c.sent, name: c.tool, arguments: c.args }));
    } else input.push({ type: 'function_call_output', call_id: u.sent, output: u.content });
  }
  const instructions = systemText(snapshot, notesFor(units, { attributed: true }));
  return { request: { model, instructions, input }, idMap };
}

function anthropicMessages(snapshot, { model, maxTokens }) {
  const units = unitsOf(snapshot);
  const idMap = assignIds(units, (id) => /^[a-zA-Z0-9_-]{1,64}$/.test(id), batonId);
  const block = (b) => {
    if (b.kind === 'text') return { type: 'text', text: b.text };
    if (b.kind === 'call') return { type: 'tool_use', id: b.call.sent, name: b.call.tool, input: JSON.parse(b.call.args) };
    return { type: 'tool_result', tool_use_id: b.result.sent, content: b.result.content };
  };
  const messages = strictTurns(units).map((t) => ({ role: t.role, content: t.blocks.map(block) }));
  const system = systemText(snapshot, notesFor(units, { moved: true, attributed: true }));
  return { request: { model, max_tokens: maxTokens == null ? DEFAULT_MAX_TOKENS : maxTokens, system, messages }, idMap };
}

function gemini(snapshot) {
  const units = unitsOf(snapshot);
  assignIds(units, null);
  linkResults(units);
  const part = (b) => {
    if (b.kind === 'text') return { text: b.text };
    if (b.kind === 'call') return { functionCall: { name: b.call.tool, args: JSON.parse(b.call.args) } };
    const tool = b.result.call ? b.result.call.tool : 'unknown';
    return { functionResponse: { name: tool, response: { output: b.result.content } } };
  };
  const contents = strictTurns(units).map((t) => ({ role: t.role === 'assistant' ? 'model' : 'user',
    parts: t.blocks.map(part) }));
  const systemInstruction = { parts: [{ text: systemText(snapshot, notesFor(units, { moved: true, attributed: true })) }] };
  return { request: { systemInstruction, contents }, idMap: [] };
}

// ---- chat-template profiles ---------------------------------------------------------------------------------

const callMessage = (calls) => ({ role: 'assistant', content: '',
  tool_calls: calls.map((c) => ({ id: c.sent, type: 'function', function: { name: c.tool, arguments: c.args } })) });

// The profile's messages after the system message, before alternation: narration as `narrationRole` messages, an
// own unit's text as a message of its own before its calls' message.
function templateMessages(units, narrationRole) {
  const out = [];
  for (const u of units) {
    if (u.kind === 'narration') out.push({ role: narrationRole, content: u.content });
    else if (u.kind === 'user') out.push({ role: 'user', content: u.content });
    else if (u.kind === 'other') out.push({ role: 'assistant', content: attributed(u) });
    else if (u.kind === 'own') {
      if (u.content !== '' || u.calls.length === 0) out.push({ role: 'assistant', content: u.content });
      if (u.calls.length > 0) out.push({ ...callMessage(u.calls), unitStart: u.content === '' });
    } else out.push({ role: 'tool', content: u.content, tool_call_id: u.sent });
  }
  return out;
}

// llama3-json: one call per assistant message, each followed by its result (calls and results keep their order).
function splitCalls(messages) {
  const out = [];
  for (let i = 0; i < messages.length; i += 1) {
    const m = messages[i];
    if (!m.tool_calls || m.tool_calls.length < 2) {
      out.push(m);
      continue;
    }
    const results = [];
    while (i + 1 < messages.length && messages[i + 1].role === 'tool') results.push(messages[(i += 1)]);
    for (const call of m.tool_calls) {
      out.push({ role: 'assistant', content: '', tool_calls: [call] });
      const at = results.findIndex((r) => r.tool_call_id === call.id);
      if (at >= 0) out.push(results.splice(at, 1)[0]);
    }
    out.push(...results); // results that answer none of the calls stay after them
  }
  return out;
}

// Strict alternation of the user/assistant text messages (calls' messages and results aside): consecutive texts
// of a role are joined with a blank line; where they cannot be (a call or result between them, or an assistant
// text then a call of the next turn), an empty message of the missing role is inserted. Starts and ends with user.
function alternate(messages) {
  const out = [];
  let lastText = null; // the last text message in `out`
  let blocked = false; // a call or result since lastText
  for (const m of messages) {
    if (m.role === 'tool') {
      out.push(m);
      blocked = true;
      continue;
    }
    if (m.tool_calls) {
      if (m.unitStart && lastText && lastText.role === 'assistant') {
        lastText = { role: 'user', content: '' };
        out.push(lastText);
      }
      out.push(m);
      blocked = true;
      continue;
    }
    if (lastText === null && m.role !== 'user') {
      lastText = { role: 'user', content: OPENS_WITH_ASSISTANT };
      out.push(lastText);
    }
    if (lastText && lastText.role === m.role && !blocked) {
      lastText.content += `\n\n${m.content}`;
      continue;
    }
    if (lastText && lastText.role === m.role) out.push({ role: m.role === 'user' ? 'assistant' : 'user', content: '' });
    lastText = { role: m.role, content: m.content };
    out.push(lastText);
    blocked = false;
  }
  const last = out[out.length - 1];
  if (!last || last.role !== 'user') {
    if (lastText && lastText.role === 'user') out.push({ role: 'assistant', content: '' });
    out.push({ role: 'user', content: CONTINUE });
  }
  return out;
}

// alternating: own calls as text lines after the unit's text, results as "[result: …]" in the next user turn.
function callsAsText(units, toAgent) {
  return units.map((u) => {
    if (u.kind === 'own' && u.calls.length > 0) {
      const lines = u.calls.map((c) => `[${toAgent} called ${c.tool}(${escape(c.args)})]`);
      return { kind: 'own', content: [u.content, ...lines].filter((t) => t !== '').join('\n'), calls: [] };
    }
    if (u.kind === 'result') return { kind: 'user', content: `[result: ${escape(u.content)}]` };
    return u;
  });
}

const clean = ({ role, content, tool_calls: calls, tool_call_id: callId }) => {
  const m = { role, content };
  if (calls) m.tool_calls = calls;
  if (callId != null) m.tool_call_id = callId;
  return m;
};

function chatTemplate(profile, snapshot, { model }) {
  let units = unitsOf(snapshot);
  const idMap = assignIds(units, profile === 'mistral-tools' ? (id) => /^[a-zA-Z0-9]{9}$/.test(id) : null, mistralId);
  const moved = profile !== 'chatml-tools' && profile !== 'llama3-json';
  const notes = notesFor(units, { moved, attributed: true, callsAsText: profile === 'alternating' });
  if (profile === 'alternating') units = callsAsText(units, snapshot.to_agent);
  let messages = templateMessages(units, moved ? 'user' : 'system');
  if (profile === 'llama3-json') {
    messages = splitCalls(messages);
    if (messages.length > 0 && messages[0].role !== 'user') messages.unshift({ role: 'user', content: OPENS_WITH_ASSISTANT });
  }
  if (profile === 'mistral-tools' || profile === 'alternating') messages = alternate(messages);
  messages = [{ role: 'system', content: systemText(snapshot, notes) }, ...messages].map(clean);
  return { request: { model, messages }, idMap };
}

// ---- the kit's API ------------------------------------------------------------------------------------------

// {dialect, request, idMap} for a LOCAL snapshot (either form); options {model, maxTokens}.
function request(snapshot, dialect, { model = 'local-model', maxTokens = DEFAULT_MAX_TOKENS } = {}) {
  const options = { model, maxTokens };
  let built;
  if (dialect === 'openai-chat') built = openaiChat(snapshot, options);
  else if (dialect === 'openai-responses') built = openaiResponses(snapshot, options);
  else if (dialect === 'anthropic-messages') built = anthropicMessages(snapshot, options);
  else if (dialect === 'gemini') built = gemini(snapshot, options);
  else if (dialect.startsWith('chat-template:') && PROFILES.includes(dialect.slice(14))) {
    built = chatTemplate(dialect.slice(14), snapshot, options);
  } else throw new Error(`unknown dialect '${dialect}' (one of ${DIALECTS.join(', ')})`);
  return { dialect, request: built.request, idMap: built.idMap };
}

// The kit's output line: openai-chat's is prompts.forTarget's; CLAUDE_CLI's the cli_prompt line in every dialect.
function forTarget(snapshot, dialect = 'openai-chat', options = {}) {
  if (snapshot.target === 'CLAUDE_CLI' || dialect === 'openai-chat') {
    return prompts.forTarget(snapshot, options.model === undefined ? 'local-model' : options.model);
  }
  const built = request(snapshot, dialect, options);
  const line = { snapshot_id: snapshot.snapshot_id, target: snapshot.target, dialect, request: built.request };
  if (built.idMap.length > 0) line.id_map = built.idMap;
  return line;
}

async function main(args) {
  if (args.length !== 1) {
    console.error('usage: dialects.js FILE|-   (one line per LOCAL snapshot and dialect)');
    return 2;
  }
  const input = args[0] === '-' ? process.stdin : fs.createReadStream(args[0], 'utf8');
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const snapshot = prompts.readSnapshotJson(line);
    if (snapshot.target === 'CLAUDE_CLI') continue;
    for (const dialect of DIALECTS) {
      const built = request(snapshot, dialect);
      process.stdout.write(`${JSON.stringify({ snapshot_id: snapshot.snapshot_id, dialect,
        request: built.request, id_map: built.idMap })}\n`);
    }
  }
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    console.error(`baton dialects: ${e.message}`);
    process.exitCode = 1;
  });
}

module.exports = { DIALECTS, PROFILES, NOTES, DEFAULT_MAX_TOKENS, request, forTarget, escape, unitsOf };
