"""Receiver dialects (docs/receivers.md), the same as the Java kit's dev.baton.consumer.dialect and
../node/dialects.js: one snapshot as the request body that one kind of receiver accepts. Each dialect is a pure
function of the snapshot, the dialect and the options (model, max_tokens): the same snapshot gives the same
bytes every time.

Both snapshot forms work: Avro-decoded dicts (arguments as compact text) and the JSON form read by
prompts.read_snapshot_json() (arguments as objects that keep their exact text). Where a dialect wants the
arguments as an object (anthropic-messages `input`, gemini `args`) the request holds an ExactJson: a dict that
also keeps the exact text, which to_line() writes as is, so number literals stay as the producer wrote them.

Run as a program, `python3 dialects.py FILE` (FILE `-` reads standard input) reads a JSONL file of JSON-form
snapshots and prints, for every LOCAL snapshot and every dialect in the document's order, one line
{"snapshot_id", "dialect", "request", "id_map"}.
"""
import json
import re
import sys

import prompts

DIALECTS = ("openai-chat", "openai-responses", "anthropic-messages", "gemini",
            "chat-template:chatml-tools", "chat-template:single-system", "chat-template:llama3-json",
            "chat-template:mistral-tools", "chat-template:alternating")
DEFAULT_DIALECT = "openai-chat"
DEFAULT_MODEL = "local-model"
DEFAULT_MAX_TOKENS = 4096

MOVED_NARRATION_NOTE = (
    'Narrated lines (lines that start with "[" or "(": other agents\' tool calls and results, system notes and '
    "markers of cut ranges, written by the hand-off service) appear inside user turns, because this interface "
    "allows no system messages within the conversation; they are not the user's words.")
ATTRIBUTED_TEXT_NOTE = (
    'Text written by another agent appears in an assistant turn after a line "[NAME said:]" naming that agent; '
    "it is not your own text.")
OWN_CALLS_NOTE = (
    'Your own earlier tool calls appear as lines "[NAME called TOOL(ARGUMENTS)]" in your turns, and their results '
    'as "[result: …]" lines in the following user turn.')
OPENING_LINE = "(hand-off: the conversation opens with an assistant turn)"
CONTINUE_LINE = "(hand-off: continue from here)"
# chat-template:llama3-json only: the user message before a transcript that opens with narration (as the Java kit)
OPENING_NARRATION_LINE = "(hand-off: the conversation opens with narrated lines)"

USER, ASSISTANT = "user", "assistant"


class ExactJson(dict):
    """A call's arguments where a dialect wants an object: the parsed object (so it compares as a JSON value)
    that also keeps the exact text the snapshot holds, which to_line() writes unchanged."""
    __slots__ = ("text",)

    def __init__(self, text):
        super().__init__(json.loads(text))
        self.text = text


def dumps(value):
    """Compact JSON, non-ASCII as itself (prompts.to_line's form), with every ExactJson written as its text."""
    if isinstance(value, ExactJson):
        return value.text
    if isinstance(value, dict):
        return "{" + ",".join(dumps(str(k)) + ":" + dumps(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


to_line = dumps

_LINE_TO_ESCAPE = re.compile(r"(\A|\r\n|\r|\n)(?=[\[(…\\])")


def escape(datum):
    """Rule R2's escape: every line that starts with "[", "(", "…" or "\\" gets one more leading "\\"."""
    return _LINE_TO_ESCAPE.sub(lambda m: m.group(1) + "\\", datum)


# ---------------------------------------------------------------------------------------------------------------
# The snapshot as units (docs/receivers.md, "Shared steps")

class Call:
    """One own call of the request: its position (1-based, in request order), original id, tool, arguments text,
    and the id the dialect sends (set by assign_ids)."""
    __slots__ = ("position", "original", "tool", "arguments", "id")

    def __init__(self, position, original, tool, arguments):
        self.position, self.original, self.tool, self.arguments, self.id = position, original, tool, arguments, original


class Unit:
    """kind: narration, user, other, own or result. own units have calls; result units have the call they
    answer."""
    __slots__ = ("kind", "text", "name", "calls", "call")

    def __init__(self, kind, text, name=None, calls=(), call=None):
        self.kind, self.text, self.name, self.calls, self.call = kind, text, name, calls, call


def units_of(snapshot):
    """The snapshot's messages as units, each result matched to its call. A unit with no text and no calls is left
    out: there is nothing of it to send, and several receivers refuse empty blocks (as the Java kit does)."""
    units, position, pending = [], 0, []
    for m in snapshot["messages"]:
        role, text = m["role"], m["content"] or ""
        if role in ("system", "user"):
            if text:
                units.append(Unit("narration" if role == "system" else "user", text))
        elif role == "assistant" and m.get("name") is not None:
            if m.get("tool_calls"):
                # R1: Baton narrates another agent's calls; a named message never carries calls
                raise ValueError(f"assistant message of {m['name']} carries tool calls: only the receiver's own "
                                 "(unnamed) assistant messages do")
            if text:
                units.append(Unit("other", text, name=m["name"]))
        elif role == "assistant":
            calls = []
            for c in m.get("tool_calls") or ():
                position += 1
                calls.append(Call(position, c["call_id"], c["tool"], prompts.arguments_text(c["arguments"])))
            if calls:
                pending = list(calls)  # the calls the following results answer (R5)
            if calls or text:
                units.append(Unit("own", text, calls=calls))
        elif role == "tool":
            # a run that reused ids names the same id twice: the first unanswered call of that id is the one
            call = next((c for c in pending if c.original == m.get("tool_call_id")), None)
            if call is None:
                raise ValueError(f"tool message answers {m.get('tool_call_id')!r}, which is no unanswered call of "
                                 "the assistant message before it")
            pending.remove(call)
            units.append(Unit("result", text, call=call))
        else:
            raise ValueError(f"a snapshot message of unknown role {role!r}")
    return units


def calls_of(units):
    return [c for u in units if u.kind == "own" for c in u.calls]


def assign_ids(calls, is_valid, new_id):
    """docs/receivers.md "Ids": an id valid for the dialect and not used by an earlier call is kept; every other
    call gets new_id(n) for its position n, skipping ids kept in the request or already given. Returns id_map."""
    kept, seen = set(), set()
    renamed = []
    for c in calls:
        if is_valid(c.original) and c.original not in seen:
            kept.add(c.original)
        else:
            renamed.append(c)
        seen.add(c.original)
    taken, id_map = set(kept), []
    for c in renamed:
        n = c.position
        while new_id(n) in taken:
            n += 1
        c.id = new_id(n)
        taken.add(c.id)
        id_map.append({"position": c.position, "original": c.original, "mapped": c.id})
    return id_map


def baton_id(n):
    return f"baton_{n}"


_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def mistral_id(n):
    digits = ""
    while n:
        n, d = divmod(n, 36)
        digits = _BASE36[d] + digits
    return "b" + digits.rjust(8, "0")


_ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


def system_text(snapshot, notes):
    parts = [snapshot["framing"]["system_prompt"], *notes, snapshot["brick"]]
    return "\n\n".join(p for p in parts if p)


def notes_for(units, moved_narration=False, attributed_text=False, own_calls_as_text=False):
    kinds = {u.kind for u in units}
    notes = []
    if moved_narration and "narration" in kinds:
        notes.append(MOVED_NARRATION_NOTE)
    if attributed_text and "other" in kinds:
        notes.append(ATTRIBUTED_TEXT_NOTE)
    if own_calls_as_text and calls_of(units):
        notes.append(OWN_CALLS_NOTE)
    return notes


def attributed(unit):
    return "[" + unit.name + " said:]\n" + unit.text


def arguments_object(call):
    return ExactJson(call.arguments)


# ---------------------------------------------------------------------------------------------------------------
# Turns of strict dialects: role-tagged content, grouped into alternating turns

def strict_turns(items, is_result):
    """items: (role, content) in order. Returns [(role, [content...])] alternating, starting and ending with a
    user turn (OPENING_LINE / CONTINUE_LINE added where needed, as the string itself: callers wrap it)."""
    turns = []
    for role, content in items:
        if turns and turns[-1][0] == role:
            turns[-1][1].append(content)
        else:
            turns.append((role, [content]))
    if turns and turns[0][0] == ASSISTANT:
        turns.insert(0, (USER, [OPENING_LINE]))
    if not turns or turns[-1][0] == ASSISTANT:
        turns.append((USER, [CONTINUE_LINE]))
    elif all(is_result(c) for c in turns[-1][1]):
        turns[-1][1].append(CONTINUE_LINE)
    return turns


# ---------------------------------------------------------------------------------------------------------------
# The dialects

def openai_chat(snapshot, model, max_tokens):
    return prompts.chat_request(snapshot, model), []


def openai_responses(snapshot, model, max_tokens):
    units = units_of(snapshot)
    id_map = assign_ids(calls_of(units), lambda _id: True, baton_id)
    items = []
    for u in units:
        if u.kind in ("narration", "user"):
            items.append({"type": "message", "role": "system" if u.kind == "narration" else "user",
                          "content": u.text})
        elif u.kind == "other":
            items.append({"type": "message", "role": "assistant", "content": attributed(u)})
        elif u.kind == "own":
            if u.text:
                items.append({"type": "message", "role": "assistant", "content": u.text})
            items.extend({"type": "function_call", "call_id": c.id, "name": c.tool, "arguments": c.arguments}
                         for c in u.calls)
        else:
            items.append({"type": "function_call_output", "call_id": u.call.id, "output": u.text})
    request = {"model": model, "instructions": system_text(snapshot, notes_for(units, attributed_text=True)),
               "input": items}
    return request, id_map


def anthropic_messages(snapshot, model, max_tokens):
    units = units_of(snapshot)
    id_map = assign_ids(calls_of(units), _ANTHROPIC_ID.fullmatch, baton_id)
    items = []

    def text(role, value):
        if value:  # the API refuses empty text blocks
            items.append((role, {"type": "text", "text": value}))

    for u in units:
        if u.kind in ("narration", "user"):
            text(USER, u.text)
        elif u.kind == "other":
            text(ASSISTANT, attributed(u))
        elif u.kind == "own":
            text(ASSISTANT, u.text)
            items.extend((ASSISTANT, {"type": "tool_use", "id": c.id, "name": c.tool,
                                      "input": arguments_object(c)}) for c in u.calls)
        else:
            items.append((USER, {"type": "tool_result", "tool_use_id": u.call.id, "content": u.text}))
    turns = strict_turns(items, lambda block: isinstance(block, dict) and block["type"] == "tool_result")
    messages = [{"role": role, "content": [c if isinstance(c, dict) else {"type": "text", "text": c}
                                           for c in content]} for role, content in turns]
    notes = notes_for(units, moved_narration=True, attributed_text=True)
    return {"model": model, "max_tokens": max_tokens, "system": system_text(snapshot, notes),
            "messages": messages}, id_map


def gemini(snapshot, model, max_tokens):
    units = units_of(snapshot)
    items = []
    for u in units:
        if u.kind in ("narration", "user"):
            items.append((USER, {"text": u.text}))
        elif u.kind == "other":
            items.append((ASSISTANT, {"text": attributed(u)}))
        elif u.kind == "own":
            if u.text:
                items.append((ASSISTANT, {"text": u.text}))
            items.extend((ASSISTANT, {"functionCall": {"name": c.tool, "args": arguments_object(c)}})
                         for c in u.calls)
        else:
            items.append((USER, {"functionResponse": {"name": u.call.tool, "response": {"output": u.text}}}))
    turns = strict_turns(items, lambda part: isinstance(part, dict) and "functionResponse" in part)
    contents = [{"role": "model" if role == ASSISTANT else USER,
                 "parts": [c if isinstance(c, dict) else {"text": c} for c in content]} for role, content in turns]
    notes = notes_for(units, moved_narration=True, attributed_text=True)
    return {"systemInstruction": {"parts": [{"text": system_text(snapshot, notes)}]}, "contents": contents}, []


# chat-template profiles ----------------------------------------------------------------------------------------

class _Msg:
    """One message of a template body being built: kind text, calls or result; unit is the index of the snapshot
    unit it comes from (-1: a line or filler the profile added)."""
    __slots__ = ("kind", "role", "content", "calls", "answers", "unit")

    def __init__(self, kind, role, content, unit, calls=(), answers=None):
        self.kind, self.role, self.content, self.unit, self.calls, self.answers = kind, role, content, unit, calls, answers

    @staticmethod
    def text(role, content, unit=-1):
        return _Msg("text", role, content, unit)

    def json(self):
        out = {"role": self.role, "content": self.content}
        if self.kind == "calls":  # tool_calls only on messages that have calls (vLLM's Mistral templates test it)
            out["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.tool, "arguments": c.arguments}} for c in self.calls]
        elif self.kind == "result":
            out["tool_call_id"] = self.answers.id
        return out


def _template_messages(units, narration_role):
    """One message per unit (another agent's text attributed), an own text a message of its own before the message
    of its calls (whose content is empty: several templates render only the calls)."""
    msgs = []
    for i, u in enumerate(units):
        if u.kind == "narration":
            msgs.append(_Msg.text(narration_role, u.text, i))
        elif u.kind == "user":
            msgs.append(_Msg.text(USER, u.text, i))
        elif u.kind == "other":
            msgs.append(_Msg.text(ASSISTANT, attributed(u), i))
        elif u.kind == "own":
            if u.text:
                msgs.append(_Msg.text(ASSISTANT, u.text, i))
            if u.calls:
                msgs.append(_Msg("calls", ASSISTANT, "", i, calls=u.calls))
        else:
            msgs.append(_Msg("result", "tool", u.text, i, answers=u.call))
    return msgs


def _one_call_per_message(msgs):
    """llama3-json (vLLM's Llama 3.1/3.2 JSON templates allow one call per message): a message of N calls followed
    by its N results becomes call 1, result 1, call 2, result 2, …"""
    out, i = [], 0
    while i < len(msgs):
        m = msgs[i]
        i += 1
        if m.kind != "calls":
            out.append(m)
            continue
        results = []
        while i < len(msgs) and msgs[i].kind == "result":
            results.append(msgs[i])
            i += 1
        for c in m.calls:
            out.append(_Msg("calls", ASSISTANT, "", m.unit, calls=[c]))
            out.extend(r for r in results if r.answers is c)
    return out


def _llama3_opening(msgs):
    """The Llama 3.1/3.2 JSON templates take the first message after the system message as the user's (they put the
    tool list into it): a transcript that opens otherwise gets an opening user line, an empty one the continuation
    line."""
    if not msgs:
        msgs.append(_Msg.text(USER, CONTINUE_LINE))
    elif msgs[0].role == "system":
        msgs.insert(0, _Msg.text(USER, OPENING_NARRATION_LINE))
    elif msgs[0].role == ASSISTANT:
        msgs.insert(0, _Msg.text(USER, OPENING_LINE))


def _join_same_role(msgs):
    """Consecutive text messages of one role joined with a blank line (mistral-tools alternates strictly)."""
    out = []
    for m in msgs:
        last = out[-1] if out else None
        if last is not None and last.kind == "text" and m.kind == "text" and last.role == m.role:
            out[-1] = _Msg.text(m.role, last.content + "\n\n" + m.content, last.unit)
        else:
            out.append(m)
    return out


def _mistral_ends(msgs):
    """mistral-tools starts with a user turn and ends with a user message (shared steps)."""
    if msgs and msgs[0].role == ASSISTANT:
        msgs.insert(0, _Msg.text(USER, OPENING_LINE))
    if not msgs or msgs[-1].kind != "text" or msgs[-1].role != USER:
        msgs.append(_Msg.text(USER, CONTINUE_LINE))


def _mistral_fillers(msgs):
    """vLLM's Mistral templates require the messages other than results and calls to alternate user/assistant. Two
    text messages of one role with only calls and results between them get an empty message of the other role at
    the turn boundary: an empty user message right after an assistant text when calls of another unit follow it (the
    user turn that starts the next assistant turn); otherwise right before the second message."""
    out, last_text = [], -1
    for m in msgs:
        if m.kind == "text" and last_text >= 0 and out[last_text].role == m.role:
            previous, at = out[last_text], len(out)
            if m.role == ASSISTANT:
                at = next((j for j in range(last_text + 1, len(out))
                           if out[j].kind == "calls" and out[j].unit != previous.unit), len(out))
            out.insert(at, _Msg.text(ASSISTANT if m.role == USER else USER, ""))
        out.append(m)
        if m.kind == "text":
            last_text = len(out) - 1
    return out


def _alternating_turns(units, to_agent):
    """chat-template:alternating: strict turns of single strings; an own unit is its text, then one line per call
    (separated by line breaks), a result the line [result: …]; the texts of one turn joined with a blank line."""
    items = []
    for u in units:
        if u.kind in ("narration", "user"):
            items.append((USER, u.text))
        elif u.kind == "other":
            items.append((ASSISTANT, attributed(u)))
        elif u.kind == "own":
            lines = ([u.text] if u.text else []) + [
                "[" + to_agent + " called " + c.tool + "(" + escape(c.arguments) + ")]" for c in u.calls]
            items.append((ASSISTANT, "\n".join(lines)))
        else:
            items.append((USER, "[result: " + escape(u.text) + "]"))
    return [_Msg.text(role, "\n\n".join(texts)) for role, texts in strict_turns(items, lambda _text: False)]


def chat_template(profile):
    def build(snapshot, model, max_tokens):
        units = units_of(snapshot)
        id_map = []
        if profile == "mistral-tools":
            id_map = assign_ids(calls_of(units), _MISTRAL_ID.fullmatch, mistral_id)
        # DeepSeek-V3's, InternLM2's, Mistral's and the publishers' templates read one system message, the first
        moved = profile in ("single-system", "mistral-tools", "alternating")
        notes = notes_for(units, moved_narration=moved, attributed_text=True,
                          own_calls_as_text=profile == "alternating")
        if profile == "alternating":
            msgs = _alternating_turns(units, snapshot["to_agent"])
        else:
            msgs = _template_messages(units, USER if moved else "system")
        if profile == "llama3-json":
            msgs = _one_call_per_message(msgs)
            _llama3_opening(msgs)
        elif profile == "mistral-tools":
            msgs = _join_same_role(msgs)
            _mistral_ends(msgs)
            msgs = _mistral_fillers(msgs)
        messages = [{"role": "system", "content": system_text(snapshot, notes)}] + [m.json() for m in msgs]
        return {"model": model, "messages": messages}, id_map
    return build


BUILDERS = {"openai-chat": openai_chat, "openai-responses": openai_responses,
            "anthropic-messages": anthropic_messages, "gemini": gemini,
            **{d: chat_template(d.split(":", 1)[1]) for d in DIALECTS if d.startswith("chat-template:")}}


def request(snapshot, dialect, model=DEFAULT_MODEL, max_tokens=DEFAULT_MAX_TOKENS):
    """{dialect, request, id_map} for one snapshot of a LOCAL target."""
    if dialect not in BUILDERS:
        raise ValueError(f"unknown dialect {dialect!r}: one of {', '.join(DIALECTS)}")
    body, id_map = BUILDERS[dialect](snapshot, model, max_tokens)
    return {"dialect": dialect, "request": body, "id_map": id_map}


def for_target(snapshot, model=DEFAULT_MODEL, dialect=DEFAULT_DIALECT, max_tokens=DEFAULT_MAX_TOKENS):
    """The kit's output line: for openai-chat and for CLAUDE_CLI targets exactly prompts.for_target's line; for
    the other dialects {snapshot_id, target, dialect, request, id_map (only when not empty)}."""
    if dialect == "openai-chat" or snapshot["target"] == "CLAUDE_CLI":
        if dialect not in BUILDERS:
            raise ValueError(f"unknown dialect {dialect!r}: one of {', '.join(DIALECTS)}")
        return prompts.for_target(snapshot, model)
    built = request(snapshot, dialect, model, max_tokens)
    line = {"snapshot_id": snapshot["snapshot_id"], "target": snapshot["target"], "dialect": dialect,
            "request": built["request"]}
    if built["id_map"]:
        line["id_map"] = built["id_map"]
    return line


def main(argv):
    if len(argv) != 2:
        print("usage: dialects.py FILE|-", file=sys.stderr)
        return 2
    source = sys.stdin if argv[1] == "-" else open(argv[1], encoding="utf-8")
    with source:
        for text in source:
            if not text.strip():
                continue
            snapshot = prompts.read_snapshot_json(text)
            if snapshot["target"] != "LOCAL":
                continue
            for dialect in DIALECTS:
                built = request(snapshot, dialect)
                sys.stdout.write(to_line({"snapshot_id": snapshot["snapshot_id"], "dialect": dialect,
                                          "request": built["request"], "id_map": built["id_map"]}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
