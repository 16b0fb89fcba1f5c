// The mapping of CONTRACT.md §3, the same as the Java API dev.baton.consumer.SnapshotPrompts and
// ../python/prompts.py: framing.system_prompt and the brick (separated by a blank line) as the leading
// system message, then the snapshot's messages one-to-one (call_id -> id, tool -> function.name,
// arguments -> function.arguments).
'use strict';

function systemText(systemPrompt, brick) {
  return brick ? `${systemPrompt}\n\n${brick}` : systemPrompt;
}

function chatRequest(snapshot, model) {
  const messages = [{ role: 'system', content: systemText(snapshot.framing.system_prompt, snapshot.brick) }];
  for (const m of snapshot.messages) {
    const out = { role: m.role };
    if (m.name != null) out.name = m.name;
    out.content = m.content;
    if (m.tool_calls && m.tool_calls.length > 0) {
      out.tool_calls = m.tool_calls.map((c) => ({
        id: c.call_id,
        type: 'function',
        function: { name: c.tool, arguments: c.arguments },
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
function forTarget(snapshot, model) {
  const line = { snapshot_id: snapshot.snapshot_id, target: snapshot.target };
  if (snapshot.target === 'CLAUDE_CLI') line.cli_prompt = cliPrompt(snapshot);
  else line.chat_request = chatRequest(snapshot, model);
  return line;
}

module.exports = { systemText, chatRequest, cliPrompt, forTarget };
