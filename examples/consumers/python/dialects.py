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
    """kind: narration, user, other, own or result. own units have calls; result units have the call they answer
    (None for a result that names no call of the preceding own message)."""
    __slots__ = ("kind", "text", "name", "calls", "call", "call_id")

    def __init__(self, kind, text, name=None, calls=(), call=None, call_id=None):
        self.kind, self.text, self.name, self.calls, self.call, self.call_id = kind, text, name, calls, call, call_id


def units_of(snapshot):
    units, position, pending = [], 0, []
    for m in snapshot["messages"]:
        role, text = m["role"], m["content"] or ""
        if role == "system":
            units.append(Unit("narration", text))
        elif role == "user":
            units.append(Unit("user", text))
        elif role == "assistant":
            if m.get("name") is not None:
                units.append(Unit("other", text, name=m["name"]))
                if not m.get("tool_calls"):
                    continue
                text = ""  # calls on a named message (not in Baton's output, R1): native calls all the same
            calls = []
            for c in m.get("tool_calls") or ():
                position += 1
                calls.append(Call(position, c["call_id"], c["tool"], prompts.arguments_text(c["arguments"])))
            units.append(Unit("own", text, calls=calls))
            pending = list(calls)  # the calls its results answer (R5: the results follow their message)
        elif role == "tool":
            # a run that reused ids names the same id twice: the first unanswered call of that id is the one
            call = next((c for c in pending if c.original == m.get("tool_call_id")), None)
            if call is not None:
                pending.remove(call)
            units.append(Unit("result", text, call=call, call_id=m.get("tool_call_id")))
        else:
            raise ValueError(f"a snapshot message of unknown role {role!r}")
    return units


def calls_of(units):
    return [c for u in units if u.kind == "own" for c in u.calls]


def result_id(unit):
    return unit.call.id if unit.call is not None else unit.call_id


def result_tool(unit):
    return unit.call.tool if unit.call is not None else "unknown"


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
            items.append({"type": "function_call_output", "call_id": result_id(u), "output": u.text})
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
            items.append((USER, {"type": "tool_result", "tool_use_id": result_id(u), "content": u.text}))
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
            items.append((USER, {"functionResponse": {"name": result_tool(u), "response": {"output": u.text}}}))
    turns = strict_turns(items, lambda part: isinstance(part, dict) and "functionResponse" in part)
    contents = [{"role": "model" if role == ASSISTANT else USER,
                 "parts": [c if isinstance(c, dict) else {"text": c} for c in content]} for role, content in turns]
    notes = notes_for(units, moved_narration=True, attributed_text=True)
    return {"systemInstruction": {"parts": [{"text": system_text(snapshot, notes)}]}, "contents": contents}, []


# chat-template profiles ----------------------------------------------------------------------------------------

def _message(role, content, calls=None, call_id=None):
    out = {"role": role, "content": content}
    if calls:
        out["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.tool, "arguments": c.arguments}}
                             for c in calls]
    if call_id is not None:
        out["tool_call_id"] = call_id
    return out


def _template_messages(units, narration_role, split_calls=False):
    """The messages of the non-alternating profiles: one per unit, an own unit's text before its calls."""
    messages = []
    for i, u in enumerate(units):
        if u.kind == "narration":
            messages.append(_message(narration_role, u.text))
        elif u.kind == "user":
            messages.append(_message(USER, u.text))
        elif u.kind == "other":
            messages.append(_message(ASSISTANT, attributed(u)))
        elif u.kind == "own":
            if not u.calls:
                messages.append(_message(ASSISTANT, u.text))
                continue
            if u.text:
                messages.append(_message(ASSISTANT, u.text))
            if not split_calls:
                messages.append(_message(ASSISTANT, "", calls=u.calls))
            # llama3-json: one message per call, each followed by its result (placed when the results come)
        else:
            messages.append(_message("tool", u.text, call_id=result_id(u)))
    return messages


def _llama3_messages(units):
    """One call per assistant message, each followed by its result: call 1, result 1, call 2, result 2."""
    messages = []
    open_calls = []  # the calls of the last own unit still waiting for their result message
    for u in units:
        if u.kind == "own" and u.calls:
            if u.text:
                messages.append(_message(ASSISTANT, u.text))
            open_calls = list(u.calls)
            messages.append(_message(ASSISTANT, "", calls=[open_calls.pop(0)]))
        elif u.kind == "result":
            messages.append(_message("tool", u.text, call_id=result_id(u)))
            if open_calls:
                messages.append(_message(ASSISTANT, "", calls=[open_calls.pop(0)]))
        else:
            while open_calls:  # calls without a result message (not in a well-formed snapshot): none is lost
                messages.append(_message(ASSISTANT, "", calls=[open_calls.pop(0)]))
            messages.extend(_template_messages([u], "system"))
    return messages


def _strict_template_messages(units, own_calls_as_text, to_agent):
    """mistral-tools and alternating: user and assistant text alternate, starting and ending with user;
    consecutive text of one role joined with a blank line."""
    messages = []  # text messages are lists of parts until joined
    last_text_role = None

    def add_text(role, value):
        nonlocal last_text_role
        if messages and messages[-1]["role"] == role and "parts" in messages[-1]:
            messages[-1]["parts"].append(value)
        else:
            if last_text_role is None and role == ASSISTANT:
                messages.append({"role": USER, "parts": [OPENING_LINE]})
            elif last_text_role == role:
                # two turns of one role that cannot be joined (calls or results between): the missing turn, empty
                messages.append({"role": ASSISTANT if role == USER else USER, "parts": []})
            messages.append({"role": role, "parts": [value]})
        last_text_role = role

    for u in units:
        if u.kind in ("narration", "user"):
            add_text(USER, u.text)
        elif u.kind == "other":
            add_text(ASSISTANT, attributed(u))
        elif u.kind == "own" and own_calls_as_text:
            add_text(ASSISTANT, u.text)
            for c in u.calls:
                add_text(ASSISTANT, "[" + to_agent + " called " + c.tool + "(" + escape(c.arguments) + ")]")
        elif u.kind == "own":
            if u.text or not u.calls:
                add_text(ASSISTANT, u.text)
            if u.calls:
                if last_text_role is None:
                    add_text(USER, OPENING_LINE)
                messages.append(_message(ASSISTANT, "", calls=u.calls))
        elif own_calls_as_text:
            add_text(USER, "[result: " + escape(u.text) + "]")
        else:
            messages.append(_message("tool", u.text, call_id=result_id(u)))
    last = messages[-1] if messages else None
    if last is None or last["role"] != USER or "parts" not in last:
        add_text(USER, CONTINUE_LINE)
    return [_message(m["role"], "\n\n".join(p for p in m["parts"] if p)) if "parts" in m else m for m in messages]


def chat_template(profile):
    def build(snapshot, model, max_tokens):
        units = units_of(snapshot)
        id_map = []
        if profile == "mistral-tools":
            id_map = assign_ids(calls_of(units), _MISTRAL_ID.fullmatch, mistral_id)
        moved = profile in ("single-system", "mistral-tools", "alternating")
        notes = notes_for(units, moved_narration=moved, attributed_text=True,
                          own_calls_as_text=profile == "alternating")
        if profile == "chatml-tools":
            body = _template_messages(units, "system")
        elif profile == "single-system":
            body = _template_messages(units, USER)
        elif profile == "llama3-json":
            body = _llama3_messages(units)
            if body and body[0]["role"] != USER:
                body.insert(0, _message(USER, OPENING_LINE))
        else:
            body = _strict_template_messages(units, profile == "alternating", snapshot["to_agent"])
        messages = [_message("system", system_text(snapshot, notes))] + body
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
