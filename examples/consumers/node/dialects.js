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
// chat-template:llama3-json only: the user message before a transcript that opens with narration
const OPENS_WITH_NARRATION = '(hand-off: the conversation opens with narrated lines)';

// ---- shared steps -------------------------------------------------------------------------------------------

// The snapshot's messages as units (docs/receivers.md, "Shared steps"), as the Java kit's SnapshotUnits reads
// them: a message with empty content and no calls is no unit (nothing of it to send; receivers refuse empty
// blocks); a named assistant message with calls is refused (R1: Baton narrates another agent's calls), and so is a
// result that answers no unanswered call of the assistant message before it. Each own call is
// {position (1-based, request order), id, tool, args (exact text)}; each result unit has the call it answers.
function unitsOf(snapshot) {
  const units = [];
  let position = 0;
  let pending = []; // the calls of the last assistant message with calls that no result answered yet (R5)
  for (const m of snapshot.messages || []) {
    const content = m.content == null ? '' : m.content;
    const calls = m.tool_calls || [];
    if (m.role === 'system' || m.role === 'user') {
      if (content !== '') units.push({ kind: m.role === 'system' ? 'narration' : 'user', content });
    } else if (m.role === 'assistant' && m.name != null) {
      if (calls.length > 0) {
        throw new Error(`assistant message of ${m.name} carries tool calls: only the receiver's own (unnamed) `
          + 'assistant messages do');
      }
      if (content !== '') units.push({ kind: 'other', content, name: m.name });
    } else if (m.role === 'assistant') {
      const own = calls.map((c) => {
        position += 1;
        return { position, id: c.call_id, tool: c.tool, args: prompts.argumentsText(c.arguments) };
      });
      if (own.length > 0) pending = [...own];
      if (own.length > 0 || content !== '') units.push({ kind: 'own', content, calls: own });
    } else if (m.role === 'tool') {
      // a run that reused ids names the same id twice: the first unanswered call of that id is the one
      const at = pending.findIndex((c) => c.id === m.tool_call_id);
      if (at < 0) {
        throw new Error(`tool message answers ${m.tool_call_id}, which is no unanswered call of the assistant `
          + 'message before it');
      }
      units.push({ kind: 'result', content, call: pending.splice(at, 1)[0] });
    } else throw new Error(`unknown message role ${m.role}`);
  }
  return units;
}

const callsOf = (units) => units.filter((u) => u.kind === 'own').flatMap((u) => u.calls);

function systemText(snapshot, notes) {
  return [snapshot.framing.system_prompt, ...notes, snapshot.brick].filter((p) => p).join('\n\n');
}

// The notes a dialect adds, in the document's order, each only when the snapshot has what it explains.
function notesFor(units, { moved = false, attributed = false, callsAsText = false }) {
  const has = (kind) => units.some((u) => u.kind === kind);
  const notes = [];
  if (moved && has('narration')) notes.push(NOTES.movedNarration);
  if (attributed && has('other')) notes.push(NOTES.attributedText);
  if (callsAsText && callsOf(units).length > 0) notes.push(NOTES.ownCallsAsText);
  return notes;
}

const attributed = (u) => `[${u.name} said:]\n${u.content}`;

// Rule R2's escape: one more leading "\" on every line that starts with "[", "(", "…" or "\".
function escape(text) {
  return text.replace(/(^|\r\n|\r|\n)(?=[[(…\\])/g, '$1\\');
}

// docs/receivers.md "Ids": every call gets `sent`, the id the dialect sends: its own when `valid` (null: every id
// is) and not used by an earlier call of the request, else newId(n) for its position n, skipping ids kept in the
// request or already given. Results send their call's `sent`. Returns the id_map, in request order.
function assignIds(units, valid, newId) {
  const calls = callsOf(units);
  const seen = new Set();
  const renamed = [];
  const taken = new Set();
  for (const c of calls) {
    if (valid == null || (c.id != null && valid(c.id) && !seen.has(c.id))) {
      c.sent = c.id;
      taken.add(c.id);
    } else renamed.push(c);
    seen.add(c.id);
  }
  return renamed.map((c) => {
    let n = c.position;
    while (taken.has(newId(n))) n += 1;
    c.sent = newId(n);
    taken.add(c.sent);
    return { position: c.position, original: c.id, mapped: c.sent };
  });
}

const batonId = (n) => `baton_${n}`;
const mistralId = (n) => `b${n.toString(36).padStart(8, '0')}`;

// ---- turns of strict dialects ---------------------------------------------------------------------------------

// Role-tagged items [role, content] (role "user"/"assistant") grouped into alternating turns {role, items}: the
// first a user turn (the opening line first where it would not be), the last a user turn with text (the
// continuation line where it would not be, or where it holds only results: isResult). The lines are added as
// strings; callers wrap them (docs/receivers.md, "Turns of strict dialects").
function strictTurns(items, isResult) {
  const turns = [];
  for (const [role, content] of items) {
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.items.push(content);
    else turns.push({ role, items: [content] });
  }
  if (turns.length > 0 && turns[0].role === 'assistant') turns.unshift({ role: 'user', items: [OPENS_WITH_ASSISTANT] });
  const last = turns[turns.length - 1];
  if (!last || last.role === 'assistant') turns.push({ role: 'user', items: [CONTINUE] });
  else if (last.items.every(isResult)) last.items.push(CONTINUE);
  return turns;
}

// ---- the dialects -------------------------------------------------------------------------------------------

function openaiChat(snapshot, { model }) {
  return { request: prompts.chatRequest(snapshot, model), idMap: [] };
}

function openaiResponses(snapshot, { model }) {
  const units = unitsOf(snapshot);
  // Responses takes any non-empty call_id; only reuse within the request makes outputs ambiguous
  const idMap = assignIds(units, (id) => id !== '', batonId);
  const input = [];
  const message = (role, content) => input.push({ type: 'message', role, content });
  for (const u of units) {
    if (u.kind === 'narration') message('system', u.content);
    else if (u.kind === 'user') message('user', u.content);
    else if (u.kind === 'other') message('assistant', attributed(u));
    else if (u.kind === 'own') {
      if (u.content !== '') message('assistant', u.content);
      u.calls.forEach((c) => input.push({ type: 'function_call', call_id: c.sent, name: c.tool, arguments: c.args }));
    } else input.push({ type: 'function_call_output', call_id: u.call.sent, output: u.content });
  }
  const instructions = systemText(snapshot, notesFor(units, { attributed: true }));
  return { request: { model, instructions, input }, idMap };
}

// The role-tagged items of anthropic-messages and gemini: text(role, TEXT) for texts (none when empty: Anthropic
// refuses empty text blocks), call(c) and result(u) for the own calls and their results.
function strictItems(units, { text, call, result }) {
  const items = [];
  const push = (role, value) => { if (value !== undefined) items.push([role, value]); };
  for (const u of units) {
    if (u.kind === 'narration' || u.kind === 'user') push('user', text(u.content));
    else if (u.kind === 'other') push('assistant', text(attributed(u)));
    else if (u.kind === 'own') {
      push('assistant', text(u.content));
      u.calls.forEach((c) => push('assistant', call(c)));
    } else push('user', result(u));
  }
  return items;
}

function anthropicMessages(snapshot, { model, maxTokens }) {
  const units = unitsOf(snapshot);
  const idMap = assignIds(units, (id) => /^[a-zA-Z0-9_-]{1,64}$/.test(id), batonId);
  const text = (t) => (t === '' ? undefined : { type: 'text', text: t });
  const items = strictItems(units, {
    text,
    call: (c) => ({ type: 'tool_use', id: c.sent, name: c.tool, input: JSON.parse(c.args) }),
    result: (u) => ({ type: 'tool_result', tool_use_id: u.call.sent, content: u.content }),
  });
  const messages = strictTurns(items, (b) => typeof b === 'object' && b.type === 'tool_result')
    .map((t) => ({ role: t.role, content: t.items.map((b) => (typeof b === 'string' ? text(b) : b)) }));
  const system = systemText(snapshot, notesFor(units, { moved: true, attributed: true }));
  const maxTokensOf = maxTokens == null ? DEFAULT_MAX_TOKENS : maxTokens;
  return { request: { model, max_tokens: maxTokensOf, system, messages }, idMap };
}

function gemini(snapshot) {
  const units = unitsOf(snapshot);
  const items = strictItems(units, {
    text: (t) => (t === '' ? undefined : { text: t }),
    call: (c) => ({ functionCall: { name: c.tool, args: JSON.parse(c.args) } }),
    result: (u) => ({ functionResponse: { name: u.call.tool, response: { output: u.content } } }),
  });
  const contents = strictTurns(items, (p) => typeof p === 'object' && 'functionResponse' in p)
    .map((t) => ({ role: t.role === 'assistant' ? 'model' : 'user',
      parts: t.items.map((p) => (typeof p === 'string' ? { text: p } : p)) }));
  const system = systemText(snapshot, notesFor(units, { moved: true, attributed: true }));
  const systemInstruction = { parts: [{ text: system }] };
  return { request: { systemInstruction, contents }, idMap: [] };
}

// ---- chat-template profiles ---------------------------------------------------------------------------------

// One message of a template body being built: kind text, calls or result; `unit` the index of the unit it comes
// from (-1: a line or filler the profile added).
const textMsg = (role, content, unit = -1) => ({ kind: 'text', role, content, unit });

// One message per unit (another agent's text attributed), an own text a message of its own before the message of
// its calls (whose content is empty: several templates render only the calls).
function templateMessages(units, narrationRole) {
  const msgs = [];
  units.forEach((u, i) => {
    if (u.kind === 'narration') msgs.push(textMsg(narrationRole, u.content, i));
    else if (u.kind === 'user') msgs.push(textMsg('user', u.content, i));
    else if (u.kind === 'other') msgs.push(textMsg('assistant', attributed(u), i));
    else if (u.kind === 'own') {
      if (u.content !== '') msgs.push(textMsg('assistant', u.content, i));
      if (u.calls.length > 0) msgs.push({ kind: 'calls', role: 'assistant', content: '', calls: u.calls, unit: i });
    } else msgs.push({ kind: 'result', role: 'tool', content: u.content, answers: u.call, unit: i });
  });
  return msgs;
}

// llama3-json (vLLM's Llama 3.1/3.2 JSON templates raise "This model only supports single tool-calls at once!"):
// a message of N calls followed by its N results becomes call 1, result 1, call 2, result 2, …
function oneCallPerMessage(msgs) {
  const out = [];
  for (let i = 0; i < msgs.length; i += 1) {
    const m = msgs[i];
    if (m.kind !== 'calls') {
      out.push(m);
      continue;
    }
    const results = [];
    while (i + 1 < msgs.length && msgs[i + 1].kind === 'result') results.push(msgs[(i += 1)]);
    for (const c of m.calls) {
      out.push({ ...m, calls: [c] });
      out.push(...results.filter((r) => r.answers === c));
    }
  }
  return out;
}

// llama3-json: the templates take the first message after the system message as the user's (they put the tool
// list into it): a transcript that opens otherwise gets an opening user line, an empty one the continuation line.
function llama3Opening(msgs) {
  if (msgs.length === 0) msgs.push(textMsg('user', CONTINUE));
  else if (msgs[0].role === 'system') msgs.unshift(textMsg('user', OPENS_WITH_NARRATION));
  else if (msgs[0].role === 'assistant') msgs.unshift(textMsg('user', OPENS_WITH_ASSISTANT));
}

// Consecutive text messages of one role joined with a blank line (mistral-tools alternates strictly).
function joinSameRole(msgs) {
  const out = [];
  for (const m of msgs) {
    const last = out[out.length - 1];
    if (last && last.kind === 'text' && m.kind === 'text' && last.role === m.role) {
      out[out.length - 1] = textMsg(m.role, `${last.content}\n\n${m.content}`, last.unit);
    } else out.push(m);
  }
  return out;
}

// mistral-tools starts with a user turn and ends with a user message (shared steps).
function mistralEnds(msgs) {
  if (msgs.length > 0 && msgs[0].role === 'assistant') msgs.unshift(textMsg('user', OPENS_WITH_ASSISTANT));
  const last = msgs[msgs.length - 1];
  if (!last || last.kind !== 'text' || last.role !== 'user') msgs.push(textMsg('user', CONTINUE));
}

// mistral-tools: vLLM's Mistral templates require the messages other than results and calls to alternate
// user/assistant. Two text messages of one role with only calls and results between them get an empty message of
// the other role at the turn boundary: an empty user message right after an assistant text when calls of another
// unit follow it (the user turn that starts the next assistant turn); otherwise right before the second message.
// Nothing is added where the text messages already alternate.
function mistralFillers(msgs) {
  const out = [];
  let lastText = -1;
  for (const m of msgs) {
    if (m.kind === 'text' && lastText >= 0 && out[lastText].role === m.role) {
      const previous = out[lastText];
      let at = out.length;
      if (m.role === 'assistant') {
        const j = out.findIndex((x, k) => k > lastText && x.kind === 'calls' && x.unit !== previous.unit);
        if (j >= 0) at = j;
      }
      out.splice(at, 0, textMsg(m.role === 'user' ? 'assistant' : 'user', ''));
    }
    out.push(m);
    if (m.kind === 'text') lastText = out.length - 1;
  }
  return out;
}

// alternating: strict turns of single strings; an own unit is its text, then one line per call (joined with
// "\n"), a result the line [result: …] in the user turn; the texts of one turn joined with a blank line.
function alternatingMessages(units, toAgent) {
  const items = units.map((u) => {
    if (u.kind === 'narration' || u.kind === 'user') return ['user', u.content];
    if (u.kind === 'other') return ['assistant', attributed(u)];
    if (u.kind === 'own') {
      const lines = u.calls.map((c) => `[${toAgent} called ${c.tool}(${escape(c.args)})]`);
      return ['assistant', [...(u.content !== '' ? [u.content] : []), ...lines].join('\n')];
    }
    return ['user', `[result: ${escape(u.content)}]`];
  });
  return strictTurns(items, () => false).map((t) => textMsg(t.role, t.items.join('\n\n')));
}

function json(m) {
  const out = { role: m.role, content: m.content };
  // tool_calls only on messages that have calls (vLLM's Mistral templates test it)
  if (m.kind === 'calls') {
    out.tool_calls = m.calls.map((c) => ({ id: c.sent, type: 'function',
      function: { name: c.tool, arguments: c.args } }));
  } else if (m.kind === 'result') out.tool_call_id = m.answers.sent;
  return out;
}

function chatTemplate(profile, snapshot, { model }) {
  const units = unitsOf(snapshot);
  const idMap = assignIds(units, profile === 'mistral-tools' ? (id) => /^[a-zA-Z0-9]{9}$/.test(id) : null, mistralId);
  // DeepSeek-V3's, InternLM2's, Mistral's and the publishers' templates read one system message, the first
  const moved = profile === 'single-system' || profile === 'mistral-tools' || profile === 'alternating';
  const notes = notesFor(units, { moved, attributed: true, callsAsText: profile === 'alternating' });
  let msgs = profile === 'alternating' ? alternatingMessages(units, snapshot.to_agent)
    : templateMessages(units, moved ? 'user' : 'system');
  if (profile === 'llama3-json') {
    msgs = oneCallPerMessage(msgs);
    llama3Opening(msgs);
  } else if (profile === 'mistral-tools') {
    msgs = joinSameRole(msgs);
    mistralEnds(msgs);
    msgs = mistralFillers(msgs);
  }
  const messages = [{ role: 'system', content: systemText(snapshot, notes) }, ...msgs.map(json)];
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
