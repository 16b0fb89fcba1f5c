"""The mapping of the contract's section 3, the same as the Java API dev.baton.consumer.SnapshotPrompts and
../node/prompts.js: framing.system_prompt and the brick (separated by a blank line) as the leading system
message, then the snapshot's messages one-to-one (call_id -> id, tool -> function.name,
arguments -> function.arguments).

A snapshot comes in two forms, and both map to the same request:
- Avro (decoded by consumer.py): `arguments` is a string, the compact JSON text Baton holds; it is used as is.
- JSON (backfill output files, topics of `baton.format=json`): `arguments` is written as the JSON object itself.
  OpenAI-compatible servers require `function.arguments` to be a string, so the object's exact text in the line is
  used: read the line with read_snapshot_json(), which keeps each object's text. That text is what the Avro form
  holds (Baton writes it verbatim), so number literals such as 1e3 or 1.10 and escapes stay as the producer wrote
  them. A snapshot parsed with plain json.loads() still works: its objects are re-serialized compactly, which
  re-spells such literals.

Run as a program, it maps a JSONL file of JSON-form snapshots (e.g. `baton backfill` output) the way consumer.py
maps the topic: python3 prompts.py FILE [MODEL] [--dialect NAME] (FILE `-` reads standard input; NAME one of
dialects.DIALECTS, default openai-chat: this module's request).
"""
import json
import json.decoder
import json.scanner
import sys


class RawJsonObject(dict):
    """A JSON object read by read_snapshot_json(): a dict that also knows its exact text in the line (raw)."""
    __slots__ = ("_source", "_start", "_end")

    @property
    def raw(self):
        return self._source[self._start:self._end]


def _object_keeping_text(s_and_end, *args):
    # the pure-Python scanner calls this with the index just after "{"; the C scanner does not call it at all
    source, after_brace = s_and_end
    value, end = json.decoder.JSONObject(s_and_end, *args)
    kept = RawJsonObject(value)
    kept._source, kept._start, kept._end = source, after_brace - 1, end
    return kept, end


class _TextKeepingDecoder(json.JSONDecoder):
    def __init__(self):
        super().__init__()
        self.parse_object = _object_keeping_text
        self.scan_once = json.scanner.py_make_scanner(self)


def read_snapshot_json(text):
    """One JSON-form snapshot (a str), parsed so that every object also keeps its exact text."""
    return _TextKeepingDecoder().decode(text)


def arguments_text(arguments):
    """function.arguments: a string, as OpenAI requires, whichever form the snapshot came in."""
    if isinstance(arguments, str):
        return arguments                       # the Avro form: Baton's compact text
    if isinstance(arguments, RawJsonObject):
        return arguments.raw                   # the JSON form, read with read_snapshot_json()
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))  # a plain json.loads() dict


def system_text(system_prompt, brick):
    return f"{system_prompt}\n\n{brick}" if brick else system_prompt


def ledger_text(ledger):
    """The call ledger (docs/rendering.md, "Call ledger") as one system message's text, as the Java and Node kits
    write it: a heading, then one line per entry, newest first."""
    text = f"[call ledger: {ledger['calls']} calls in {len(ledger['entries'])} entries, newest first"
    dropped = ledger["dropped_entries"]
    if dropped > 0:
        text += f"; {dropped} older {'entry' if dropped == 1 else 'entries'} ({ledger['dropped_calls']} calls) dropped"
    text += "]"
    for e in ledger["entries"]:
        counts = ", ".join(f"{e[s]} {s.upper()}" for s in ("ok", "error", "cleared", "unanswered") if e[s])
        text += (f"\n{e['tool']} x{e['count']}: newest seq {e['seq']} by {e['agent']}, {e['status']}; {counts}; "
                 f"args sha256 {e['arguments_sha256'][:12]}; {e['visible']}")
    return text


def chat_request(snapshot, model, with_ledger=False):
    """The request body; with_ledger adds the snapshot's call ledger (when it has one) as a second system message."""
    messages = [{"role": "system",
                 "content": system_text(snapshot["framing"]["system_prompt"], snapshot["brick"])}]
    if with_ledger and snapshot.get("call_ledger") is not None:
        messages.append({"role": "system", "content": ledger_text(snapshot["call_ledger"])})
    for m in snapshot["messages"]:
        out = {"role": m["role"]}
        if m.get("name") is not None:
            out["name"] = m["name"]
        out["content"] = m["content"]
        if m.get("tool_calls"):
            out["tool_calls"] = [{"id": c["call_id"], "type": "function",
                                  "function": {"name": c["tool"], "arguments": arguments_text(c["arguments"])}}
                                 for c in m["tool_calls"]]
        if m.get("tool_call_id") is not None:
            out["tool_call_id"] = m["tool_call_id"]
        messages.append(out)
    return {"model": model, "messages": messages}


def cli_prompt(snapshot):
    return system_text(snapshot["framing"]["system_prompt"], snapshot["brick"])


def for_target(snapshot, model, with_ledger=False):
    """One output line: chat_request for LOCAL targets, cli_prompt for CLAUDE_CLI targets."""
    line = {"snapshot_id": snapshot["snapshot_id"], "target": snapshot["target"]}
    if snapshot["target"] == "CLAUDE_CLI":
        line["cli_prompt"] = cli_prompt(snapshot)
    else:
        line["chat_request"] = chat_request(snapshot, model, with_ledger)
    return line


def to_line(value):
    """The printed form of one output line: compact JSON, non-ASCII as itself."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def main(argv):
    args = list(argv[1:])
    dialect = None
    if "--dialect" in args:
        at = args.index("--dialect")
        if at + 1 >= len(args):
            args = []  # usage
        else:
            dialect = args[at + 1]
            del args[at:at + 2]
    if len(args) not in (1, 2):
        print("usage: prompts.py FILE|- [MODEL] [--dialect NAME]", file=sys.stderr)
        return 2
    model = args[1] if len(args) == 2 else "local-model"
    if dialect is None:
        line_for = lambda snapshot: for_target(snapshot, model)  # noqa: E731
    else:
        import dialects  # dialects imports this module: imported here, when asked for
        if dialect not in dialects.DIALECTS:
            print(f"prompts.py: unknown dialect {dialect!r}: one of {', '.join(dialects.DIALECTS)}", file=sys.stderr)
            return 2
        line_for = lambda snapshot: dialects.for_target(snapshot, model, dialect)  # noqa: E731
    source = sys.stdin if args[0] == "-" else open(args[0], encoding="utf-8")
    with source:
        for line in source:
            if line.strip():
                sys.stdout.write(dialect_line(line_for(read_snapshot_json(line))) + "\n")
    return 0


def dialect_line(value):
    """to_line, except that arguments kept as exact text inside a dialect's request are written as that text."""
    import dialects
    return dialects.to_line(value)


if __name__ == "__main__":
    # run the importable module's main: dialects.py imports `prompts`, and a second copy of this module (as
    # __main__) would have a RawJsonObject class that the mapping does not know
    import prompts
    sys.exit(prompts.main(sys.argv))
