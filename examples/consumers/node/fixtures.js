// Hand-made snapshots (Avro form: arguments as text) for the dialect tests: each one a shape that breaks some
// receiver's rule when sent the obvious way (docs/receivers.md). Test data only.
'use strict';

const snapshot = (id, messages, extra = {}) => ({
  snapshot_id: `acme/s/${id}`, target: 'LOCAL', to_agent: 'claude-opus', from_agent: 'qwen-coder',
  framing: { kind: 'CONTINUITY', system_prompt: 'You own this work.' }, brick: 'Session acme/s.', messages, ...extra,
});
const sys = (content) => ({ role: 'system', name: null, content, tool_calls: [], tool_call_id: null });
const user = (content) => ({ role: 'user', name: null, content, tool_calls: [], tool_call_id: null });
const other = (name, content) => ({ role: 'assistant', name, content, tool_calls: [], tool_call_id: null });
const own = (content, ...calls) => ({ role: 'assistant', name: null, content,
  tool_calls: calls.map(([callId, tool, args]) => ({ call_id: callId, tool, arguments: args })), tool_call_id: null });
const result = (callId, content) => ({ role: 'tool', name: null, content, tool_calls: [], tool_call_id: callId });

const FIXTURES = [
  snapshot('plain', [user('Fix the build.'), other('qwen-coder', 'I looked at it.'), user('Go on.')]),
  snapshot('narration-first', [sys('[manifest: 3 turns]\n(turns 1-2 missing)'), user('Fix it.'),
    sys('[qwen-coder called run_tests({})]\n[result: 2 failed]'), own('On it.', ['call_1', 'run_tests', '{"k":1e3}']),
    result('call_1', '[ok]\n(done)')]),
  snapshot('own-first', [own('', ['toolu_01', 'read_file', '{"path":"a.txt","lines":[1,2],"all":false}']),
    result('toolu_01', 'hello "world"\nline two'), own('Read it.')]),
  snapshot('parallel-calls', [user('Check both.'),
    own('Checking.', ['c:1', 'read_file', '{"path":"x"}'], ['c:2', 'list_dir', '{"dir":"/tmp","deep":true}']),
    result('c:1', 'x body'), result('c:2', 'a\nb'), own('Both fine.'), user('Thanks.')]),
  snapshot('reused-ids', [user('Loop.'), own('', ['call_0', 'step', '{"n":1}']), result('call_0', 'one'),
    own('', ['call_0', 'step', '{"n":2}']), result('call_0', 'two'), other('reviewer', 'Looks right.')]),
  snapshot('text-then-call', [user('Do it.'), own('Plan first.'), own('', ['abcdefghi', 'apply_patch', '{"diff":"--- a"}']),
    result('abcdefghi', 'applied'), own('Done.')]),
  snapshot('calls-only-then-user', [user('Run.'), own('', ['run1', 'run_tests', '{}']), result('run1', '3 passed'),
    user('And now?')]),
  snapshot('empty', []),
  snapshot('unicode', [user('café ☕ — "quotes" \\ backslash'), other('gemini-pro', '…resumed'),
    sys('(hand-off marker)'), own('ok', ['id with space', 'search', '{"q":"naïve \\"x\\"","n":1.5,"z":null}']),
    result('id with space', '')]),
];

module.exports = { FIXTURES, snapshot, sys, user, other, own, result };
