// Renders a chat-template:* request through the real chat templates docs/receivers.md says its profile is checked
// against, the way an inference server does, and checks that nothing of the request was lost.
//
// The templates are third-party files read in place from <repo>/../shared/receivers/{vllm,chat_templates}/
// (SHARED_DATA_DIR overrides <repo>/../shared); SOURCES.json there gives each one's bos/eos tokens and how it is
// loaded. Rendering follows Hugging Face's apply_chat_template (@huggingface/jinja: trim_blocks, lstrip_blocks,
// raise_exception, tojson): messages, tools, add_generation_prompt true, bos_token, eos_token. Before rendering,
// what vLLM does to a chat request (vllm/entrypoints/chat_utils.py, _postprocess_messages): the `arguments` string
// of every assistant tool call is parsed into an object (json.loads; empty or missing: {}), since tool-use
// templates expect a mapping.
'use strict';

const fs = require('fs');
const path = require('path');
const { Template, Interpreter } = require('@huggingface/jinja');

// Python's str() of a template value (what Jinja's `format` filter, `value % args`, writes for %s).
function pyStr(v) {
  if (v.type === 'StringValue') return v.value;
  return pyRepr(v);
}
function pyRepr(v) {
  switch (v.type) {
    case 'StringValue': return `'${v.value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
    case 'BooleanValue': return v.value ? 'True' : 'False';
    case 'NullValue': case 'UndefinedValue': return 'None';
    case 'IntegerValue': return String(v.value);
    case 'FloatValue': return Number.isInteger(v.value) ? `${v.value}.0` : String(v.value);
    case 'ArrayValue': return `[${v.value.map(pyRepr).join(', ')}]`;
    case 'ObjectValue': return `{${[...v.value].map(([k, x]) => `'${k}': ${pyRepr(x)}`).join(', ')}}`;
    default: return String(v.value);
  }
}

// @huggingface/jinja has no `format` filter, which Jinja has and the ToolACE template uses ("%sr" | format(x));
// added here for %s and %% only, as Python's `%` operator does them; any other conversion is an error.
const applyFilter = Interpreter.prototype.applyFilter;
Interpreter.prototype.applyFilter = function applyFilterWithFormat(operand, filterNode, environment) {
  if (filterNode.type === 'CallExpression' && filterNode.callee.type === 'Identifier'
      && filterNode.callee.value === 'format' && operand.type === 'StringValue') {
    const [args] = this.evaluateArguments(filterNode.args, environment);
    let next = 0;
    const text = operand.value.replace(/%(.)/g, (all, c) => {
      if (c === '%') return '%';
      if (c !== 's' || next >= args.length) throw new Error(`format: unsupported or unmatched ${all}`);
      return pyStr(args[next++]);
    });
    return new operand.constructor(text);
  }
  // map('FILTER') (Jinja applies the filter to each item; @huggingface/jinja knows only map(attribute=...)),
  // used by the Llama 3.1/3.2 JSON templates on content parts: map('trim')
  if (filterNode.type === 'CallExpression' && filterNode.callee.type === 'Identifier'
      && filterNode.callee.value === 'map' && operand.type === 'ArrayValue' && filterNode.args.length === 1
      && filterNode.args[0].type === 'StringLiteral') {
    const each = { type: 'Identifier', value: filterNode.args[0].value };
    return new operand.constructor(operand.value.map((item) => this.applyFilter(item, each, environment)));
  }
  return applyFilter.call(this, operand, filterNode, environment);
};

// profile -> the templates it is checked against (docs/receivers.md, "chat-template:NAME"), as paths in shared.
const CLAIMED = Object.freeze({
  'chatml-tools': ['vllm/tool_chat_template_hermes.jinja', 'vllm/tool_chat_template_granite.jinja',
    'vllm/tool_chat_template_toolace.jinja', 'chat_templates/qwen2.5-instruct.jinja'],
  'single-system': ['vllm/tool_chat_template_deepseekv3.jinja', 'vllm/tool_chat_template_internlm2_tool.jinja'],
  'llama3-json': ['vllm/tool_chat_template_llama3.1_json.jinja', 'vllm/tool_chat_template_llama3.2_json.jinja'],
  'mistral-tools': ['vllm/tool_chat_template_mistral.jinja', 'vllm/tool_chat_template_mistral_parallel.jinja'],
  alternating: ['chat_templates/llama-3-instruct.jinja', 'chat_templates/mistral-instruct.jinja',
    'chat_templates/gemma-it.jinja'],
});

const REPO = path.resolve(__dirname, '..', '..', '..');

// The shared folder: SHARED_DATA_DIR, else <repo>/../shared; null when it has no receivers/.
function sharedDir(env = process.env) {
  const dir = env.SHARED_DATA_DIR || path.join(REPO, '..', 'shared');
  return fs.existsSync(path.join(dir, 'receivers', 'SOURCES.json')) ? dir : null;
}

// Every claimed template, loaded once: {name, profile, template, bos, eos}.
function loadTemplates(shared) {
  const receivers = path.join(shared, 'receivers');
  const sources = JSON.parse(fs.readFileSync(path.join(receivers, 'SOURCES.json'), 'utf8')).files;
  const out = [];
  for (const [profile, files] of Object.entries(CLAIMED)) {
    for (const file of files) {
      const source = sources.find((f) => f.path === file);
      if (!source) throw new Error(`${file} is not in SOURCES.json`);
      let text = fs.readFileSync(path.join(receivers, file), 'utf8');
      // the collection's README recipe for these templates (SOURCES.json "load")
      if (source.load === 'readme') text = text.split('    ').join('').split('\n').join('');
      out.push({ name: path.basename(file, '.jinja'), profile, template: new Template(text),
        bos: source.bos_token, eos: source.eos_token, contentFormat: contentFormat(text) });
    }
  }
  return out;
}

// vLLM's content format for a template (chat_utils.py, _detect_content_format): "openai" when the template loops
// over a message's content (it then gets content as a list of {type: "text", text} parts), else "string". vLLM
// walks the Jinja AST; a for loop over message['content'] or message.content is what it finds in these templates.
function contentFormat(text) {
  return /\{%-?\s*for\s+\w+\s+in\s+message(\[['"]content['"]\]|\.content)/.test(text) ? 'openai' : 'string';
}

// The request's messages as vLLM hands them to the template: tool call arguments parsed into objects, content as
// parts for an "openai"-format template.
function vllmMessages(request, format = 'string') {
  return request.messages.map((m) => {
    const out = JSON.parse(JSON.stringify(m));
    if (format === 'openai' && typeof out.content === 'string') out.content = [{ type: 'text', text: out.content }];
    if (out.role === 'assistant' && Array.isArray(out.tool_calls)) {
      if (out.tool_calls.length === 0) delete out.tool_calls;
      else out.tool_calls.forEach((c) => { c.function.arguments = c.function.arguments ? JSON.parse(c.function.arguments) : {}; });
    }
    return out;
  });
}

// OpenAI-style function definitions for the tool names the request's calls use (in first-use order).
function toolsOf(request) {
  const names = [...new Set(request.messages.flatMap((m) => (m.tool_calls || []).map((c) => c.function.name)))];
  return names.map((name) => ({ type: 'function',
    function: { name, description: `the tool ${name}`, parameters: { type: 'object', properties: {} } } }));
}

function render(t, request) {
  const tools = toolsOf(request);
  const context = { messages: vllmMessages(request, t.contentFormat), add_generation_prompt: true, bos_token: t.bos, eos_token: t.eos };
  if (tools.length > 0) context.tools = tools;
  return t.template.render(context);
}

// How a text may appear in a prompt: as is, trimmed (templates `| trim` contents), or inside a JSON string (templates
// that `tojson` a result).
function appears(prompt, text) {
  const forms = [text, text.trim()];
  forms.push(...forms.map((f) => JSON.stringify(f).slice(1, -1)));
  return forms.some((f) => prompt.includes(f));
}

function leaves(value) {
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [value];
}

// The first thing of the request the prompt lacks, or null: every message's content, every call's tool name and
// the values of its arguments.
function missing(prompt, request) {
  for (const [i, m] of request.messages.entries()) {
    if (m.content && !appears(prompt, m.content)) return `message ${i} (${m.role}): content not rendered`;
    for (const c of m.tool_calls || []) {
      if (!prompt.includes(c.function.name)) return `message ${i}: tool name ${c.function.name} not rendered`;
      for (const v of leaves(JSON.parse(c.function.arguments || '{}'))) {
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        // a template that writes values with Python's str() (ToolACE) spells true, false, null as Python does
        const python = { true: 'True', false: 'False', null: 'None' }[text];
        if (!appears(prompt, text) && !(python && prompt.includes(python))) return `message ${i}: argument value ${text.slice(0, 60)} not rendered`;
      }
    }
  }
  return null;
}

// {ok, reason, prompt}: the render of one request through one template, checked.
function check(t, request) {
  let prompt;
  try {
    prompt = render(t, request);
  } catch (e) {
    return { ok: false, reason: `raised: ${e.message}` };
  }
  const reason = missing(prompt, request);
  return { ok: reason === null, reason, prompt };
}

module.exports = { CLAIMED, contentFormat, sharedDir, loadTemplates, vllmMessages, toolsOf, render, missing, check };
