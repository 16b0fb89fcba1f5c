"""The receiver dialects (dialects.py, docs/receivers.md): the shared test vectors of the three kits, determinism
and the two snapshot forms, hand-checked requests per dialect, and the invariants of "What holds in every
dialect" on randomized snapshots (fixed seeds). Standard library only; run by ConsumerKitsLogicTest."""
import json
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import unittest

import dialects
import prompts
import settings
from dialects import CONTINUE_LINE, OPENING_LINE, escape

HERE = pathlib.Path(__file__).resolve().parent
TESTDATA = HERE.parent / "testdata"
VECTORS = TESTDATA / "dialects.jsonl"
TO_AGENT = "claude-opus"


def snapshot(messages, system_prompt="You own this work.", brick="Session acme/s-1.", target="LOCAL"):
    """An Avro-form snapshot (arguments as compact text) with the fields the dialects read."""
    return {"snapshot_id": "acme/s-1/h1", "target": target, "to_agent": TO_AGENT,
            "framing": {"kind": "CONTINUITY", "system_prompt": system_prompt}, "brick": brick,
            "messages": [{"role": m[0], "name": None, "content": "", "tool_calls": [], "tool_call_id": None, **m[1]}
                         for m in messages]}


def narration(text):
    return ("system", {"content": text})


def user(text):
    return ("user", {"content": text})


def other(name, text):
    return ("assistant", {"name": name, "content": text})


def own(text, *calls):
    return ("assistant", {"content": text,
                          "tool_calls": [{"call_id": i, "tool": t, "arguments": a} for i, t, a in calls]})


def result(call_id, text):
    return ("tool", {"content": text, "tool_call_id": call_id})


def as_value(request):
    """A request as the parsed JSON value of its printed line (how the kits compare requests)."""
    return json.loads(dialects.to_line(request))


def json_form_line(avro_form):
    """The JSON form of a snapshot (as `baton backfill` writes it): each arguments text written as the object."""
    copy = json.loads(json.dumps(avro_form))
    for m, original in zip(copy["messages"], avro_form["messages"]):
        for c, o in zip(m["tool_calls"], original["tool_calls"]):
            c["arguments"] = dialects.ExactJson(o["arguments"])
    return dialects.to_line(copy)


class SharedVectorsTest(unittest.TestCase):
    """examples/consumers/testdata/dialects.jsonl: the cases the Java reference wrote; every kit gives each
    case's expected request (compared as parsed JSON values)."""

    def test_should_build_every_shared_vector_as_expected(self):
        if not VECTORS.exists():
            if os.environ.get("CI") == "true":
                self.fail(f"{VECTORS} is missing")
            self.skipTest(f"{VECTORS} not there yet (written by the Java kit)")
        # each line read keeping the objects' text: the snapshot's arguments are then the JSON form's exact text
        cases = [prompts.read_snapshot_json(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        self.assertTrue(cases)
        failed = []
        for case in cases:
            options = case.get("options") or {}
            line = dialects.for_target(case["snapshot"], options.get("model", dialects.DEFAULT_MODEL),
                                       case["dialect"], options.get("max_tokens", dialects.DEFAULT_MAX_TOKENS))
            if as_value(line) != json.loads(json.dumps(case["expected"])):
                failed.append(f"{case['name']} / {case['dialect']}")
        self.assertEqual(failed, [], f"{len(failed)} of {len(cases)} vectors differ")


class ReasoningTest(unittest.TestCase):
    """docs/receivers.md, "Reasoning": no dialect sends reasoning, even from a snapshot whose messages carry some."""

    def test_should_send_no_reasoning_even_when_the_snapshot_carries_reasoning_fields(self):
        cases = [prompts.read_snapshot_json(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        for case in cases:
            snapshot = case["snapshot"]
            if snapshot["target"] != "LOCAL":
                continue
            with_reasoning = dict(snapshot, messages=[dict(m, reasoning_content="SENDER-REASONING",
                                                           thinking={"signature": "c2ln"})
                                                      for m in snapshot["messages"]])
            for d in dialects.DIALECTS:
                text = dialects.dumps(dialects.request(with_reasoning, d, model="m")["request"])
                self.assertNotIn("SENDER-REASONING", text, f"{case['name']} {d}")
                self.assertNotIn("c2ln", text, f"{case['name']} {d}")
                self.assertIsNone(re.search(r'"(thinking|redacted_thinking|reasoning|thoughtSignature)"', text))


class DeterminismTest(unittest.TestCase):

    def test_should_give_the_same_bytes_every_time_and_for_both_forms(self):
        for seed in range(40):
            avro_form = RandomSnapshots(seed).snapshot()
            json_form = prompts.read_snapshot_json(json_form_line(avro_form))
            for dialect in dialects.DIALECTS:
                with self.subTest(seed=seed, dialect=dialect):
                    first = dialects.to_line(dialects.request(avro_form, dialect))
                    self.assertEqual(dialects.to_line(dialects.request(avro_form, dialect)), first)
                    self.assertEqual(dialects.to_line(dialects.request(json_form, dialect)), first)

    def test_should_write_arguments_objects_as_their_exact_text(self):
        raw = '{"repeat":1e3,"ratio":1.10,"big":123456789012345678901234567890,"name":"caf\\u00e9"}'
        snap = snapshot([user("go"), own("", ("c1", "run", raw)), result("c1", "ok")])
        anthropic = dialects.to_line(dialects.request(snap, "anthropic-messages")["request"])
        gemini = dialects.to_line(dialects.request(snap, "gemini")["request"])
        self.assertIn('"input":' + raw + "}", anthropic)
        self.assertIn('"args":' + raw + "}", gemini)


class OutputLinesTest(unittest.TestCase):

    def test_should_keep_todays_line_for_openai_chat_and_claude_cli(self):
        lines = (TESTDATA / "json-form.jsonl").read_text(encoding="utf-8").splitlines()
        expected = (TESTDATA / "prompts.jsonl").read_text(encoding="utf-8").splitlines()
        self.assertEqual([dialects.to_line(dialects.for_target(prompts.read_snapshot_json(l), "qwen3")) for l in lines],
                         expected)
        cli = prompts.read_snapshot_json(lines[1])
        self.assertEqual(dialects.for_target(cli, "m", "gemini"), prompts.for_target(cli, "m"))

    def test_should_give_dialect_and_id_map_only_when_not_empty(self):
        snap = snapshot([user("go"), own("", ("c 1", "run", "{}")), result("c 1", "ok")])
        line = dialects.for_target(snap, "m", "anthropic-messages")
        self.assertEqual(list(line), ["snapshot_id", "target", "dialect", "request", "id_map"])
        self.assertEqual(line["id_map"], [{"position": 1, "original": "c 1", "mapped": "baton_1"}])
        self.assertNotIn("id_map", dialects.for_target(snap, "m", "gemini"))

    def test_should_refuse_an_unknown_dialect(self):
        with self.assertRaises(ValueError):
            dialects.request(snapshot([]), "claude")
        with self.assertRaises(ValueError):
            dialects.for_target(snapshot([]), "m", "claude")

    @staticmethod
    def snapshots_file(directory):
        """Two JSON-form snapshots, a LOCAL one with exact arguments text and a CLAUDE_CLI one."""
        local = snapshot([user("go"), own("", ("c1", "run", '{"repeat":1e3,"ratio":1.10}')), result("c1", "ok")])
        path = pathlib.Path(directory, "snapshots.jsonl")
        path.write_text(json_form_line(local) + "\n" + json_form_line({**snapshot([]), "target": "CLAUDE_CLI"}) + "\n",
                        encoding="utf-8")
        return str(path)

    def test_should_print_every_dialect_of_every_local_snapshot_as_a_program(self):
        with tempfile.TemporaryDirectory() as d:
            out = subprocess.run([sys.executable, str(HERE / "dialects.py"), self.snapshots_file(d)],
                                 capture_output=True, text=True, check=True).stdout.splitlines()
        lines = [json.loads(l) for l in out]
        self.assertEqual([l["dialect"] for l in lines], list(dialects.DIALECTS), "the LOCAL snapshot only, in order")
        self.assertEqual({tuple(l) for l in lines}, {("snapshot_id", "dialect", "request", "id_map")})
        self.assertIn('"input":{"repeat":1e3,"ratio":1.10}', out[2], "the exact arguments text")

    def test_should_map_with_a_dialect_in_prompts_program(self):
        with tempfile.TemporaryDirectory() as d:
            out = subprocess.run([sys.executable, str(HERE / "prompts.py"), self.snapshots_file(d), "qwen3",
                                  "--dialect", "anthropic-messages"], capture_output=True, text=True, check=True).stdout
        first, second = [json.loads(l) for l in out.splitlines()]
        self.assertEqual((first["dialect"], first["request"]["model"]), ("anthropic-messages", "qwen3"))
        self.assertIn('"input":{"repeat":1e3,"ratio":1.10}', out.splitlines()[0])
        self.assertEqual(set(second), {"snapshot_id", "target", "cli_prompt"})

    def test_should_refuse_another_agents_calls_and_a_result_of_no_call(self):
        with self.assertRaisesRegex(ValueError, "qwen carries tool calls"):
            dialects.request(snapshot([("assistant", {"name": "qwen", "tool_calls": [
                {"call_id": "c1", "tool": "ls", "arguments": "{}"}]})]), "gemini")
        with self.assertRaisesRegex(ValueError, "answers 'c9'"):
            dialects.request(snapshot([own("", ("c1", "ls", "{}")), result("c9", "x")]), "gemini")


class DialectSettingTest(unittest.TestCase):

    def test_should_default_to_openai_chat_and_refuse_an_unknown_dialect(self):
        self.assertEqual(settings.load({})["DIALECT"], "openai-chat")
        self.assertEqual(settings.load({"DIALECT": "chat-template:mistral-tools"})["DIALECT"],
                         "chat-template:mistral-tools")
        with self.assertRaisesRegex(settings.SettingsError, "DIALECT must be one of openai-chat, "):
            settings.load({"DIALECT": "mistral-tools"})


class HandCheckedTest(unittest.TestCase):
    """Requests written out by hand from docs/receivers.md."""

    NOTE_MOVED = dialects.MOVED_NARRATION_NOTE
    NOTE_OTHER = dialects.ATTRIBUTED_TEXT_NOTE

    def test_should_escape_every_line_start_that_could_pass_for_a_marker(self):
        self.assertEqual(escape("[a\n(b\r\n…c\r\\d\ne [f"), "\\[a\n\\(b\r\n\\…c\r\\\\d\ne [f")
        self.assertEqual(escape("plain"), "plain")

    def test_should_write_mistral_ids_in_base_36(self):
        self.assertEqual([dialects.mistral_id(n) for n in (7, 35, 36)], ["b00000007", "b0000000z", "b00000010"])

    def test_should_build_openai_responses_items_and_map_a_reused_id(self):
        snap = snapshot([narration("[qwen called ls({})]\n[result: a]"), user("go"), other("qwen", "done?"),
                         own("I run it.", ("c1", "run", '{"n":1}')), result("c1", "ok"),
                         own("", ("c1", "run", "{}")), result("c1", "again")])
        built = dialects.request(snap, "openai-responses", model="gpt")
        self.assertEqual(as_value(built["request"]), {
            "model": "gpt",
            "instructions": "You own this work.\n\n" + self.NOTE_OTHER + "\n\nSession acme/s-1.",
            "input": [
                {"type": "message", "role": "system", "content": "[qwen called ls({})]\n[result: a]"},
                {"type": "message", "role": "user", "content": "go"},
                {"type": "message", "role": "assistant", "content": "[qwen said:]\ndone?"},
                {"type": "message", "role": "assistant", "content": "I run it."},
                {"type": "function_call", "call_id": "c1", "name": "run", "arguments": '{"n":1}'},
                {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                {"type": "function_call", "call_id": "baton_2", "name": "run", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "baton_2", "output": "again"}]})
        self.assertEqual(built["id_map"], [{"position": 2, "original": "c1", "mapped": "baton_2"}])

    def test_should_build_anthropic_turns_that_alternate_from_user_to_user(self):
        snap = snapshot([own("Earlier.", ("toolu_1", "ls", "{}"), ("bad id", "cat", '{"f":"a"}')),
                         result("toolu_1", "a"), result("bad id", ""), narration("(… 2 turns omitted)"),
                         user("next"), other("qwen", "mine"), own("", ("baton_3", "ls", "{}")),
                         result("baton_3", "b"), own("Over to you.")], brick="")
        built = dialects.request(snap, "anthropic-messages", model="claude", max_tokens=100)
        self.assertEqual(as_value(built["request"]), {
            "model": "claude", "max_tokens": 100,
            "system": "You own this work.\n\n" + self.NOTE_MOVED + "\n\n" + self.NOTE_OTHER,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": OPENING_LINE}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Earlier."},
                    {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}},
                    {"type": "tool_use", "id": "baton_2", "name": "cat", "input": {"f": "a"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"},
                    {"type": "tool_result", "tool_use_id": "baton_2", "content": ""},
                    {"type": "text", "text": "(… 2 turns omitted)"},
                    {"type": "text", "text": "next"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "[qwen said:]\nmine"},
                    {"type": "tool_use", "id": "baton_3", "name": "ls", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "baton_3", "content": "b"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "Over to you."}]},
                {"role": "user", "content": [{"type": "text", "text": CONTINUE_LINE}]}]})
        self.assertEqual(built["id_map"], [{"position": 2, "original": "bad id", "mapped": "baton_2"}])

    def test_should_skip_a_new_id_that_a_kept_id_already_is(self):
        snap = snapshot([user("go"), own("", ("x y", "a", "{}"), ("baton_1", "b", "{}")),
                         result("x y", "1"), result("baton_1", "2")])
        built = dialects.request(snap, "anthropic-messages")
        self.assertEqual(built["id_map"], [{"position": 1, "original": "x y", "mapped": "baton_2"}])
        self.assertEqual([b["tool_use_id"] for b in built["request"]["messages"][2]["content"][:2]],
                         ["baton_2", "baton_1"])

    def test_should_answer_gemini_calls_in_the_next_user_turn_and_end_on_a_prompt(self):
        snap = snapshot([user("go"), own("", ("c1", "ls", '{"d":"."}'), ("c2", "cat", "{}")),
                         result("c1", "a"), result("c2", "b")], system_prompt="")
        self.assertEqual(as_value(dialects.request(snap, "gemini")["request"]), {
            "systemInstruction": {"parts": [{"text": "Session acme/s-1."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {"d": "."}}},
                                            {"functionCall": {"name": "cat", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a"}}},
                                           {"functionResponse": {"name": "cat", "response": {"output": "b"}}},
                                           {"text": CONTINUE_LINE}]}]})

    def test_should_give_gemini_one_continuation_turn_for_an_empty_transcript(self):
        self.assertEqual(dialects.request(snapshot([]), "gemini")["request"]["contents"],
                         [{"role": "user", "parts": [{"text": CONTINUE_LINE}]}])

    def test_should_split_llama3_calls_into_call_result_pairs(self):
        snap = snapshot([user("go"), own("Two.", ("c1", "ls", "{}"), ("c2", "cat", "{}")),
                         result("c1", "a"), result("c2", "b")])
        messages = dialects.request(snap, "chat-template:llama3-json")["request"]["messages"]
        self.assertEqual(messages[1:], [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "Two."},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "tool", "content": "a", "tool_call_id": "c1"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c2", "type": "function", "function": {"name": "cat", "arguments": "{}"}}]},
            {"role": "tool", "content": "b", "tool_call_id": "c2"}])

    def test_should_keep_mistral_text_alternating_around_calls(self):
        snap = snapshot([narration("(note)"), user("go"), own("A.", ("call_0001", "ls", "{}")),
                         result("call_0001", "a"), own("B.", ("abcDEF123", "ls", "{}")), result("abcDEF123", "b")])
        built = dialects.request(snap, "chat-template:mistral-tools")
        self.assertEqual(built["request"]["messages"], [
            {"role": "system", "content": "You own this work.\n\n" + self.NOTE_MOVED + "\n\nSession acme/s-1."},
            {"role": "user", "content": "(note)\n\ngo"},
            {"role": "assistant", "content": "A."},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "b00000001", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "tool", "content": "a", "tool_call_id": "b00000001"},
            {"role": "user", "content": ""},
            {"role": "assistant", "content": "B."},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "abcDEF123", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "tool", "content": "b", "tool_call_id": "abcDEF123"},
            {"role": "user", "content": CONTINUE_LINE}])
        self.assertEqual(built["id_map"], [{"position": 1, "original": "call_0001", "mapped": "b00000001"}])

    def test_should_write_own_calls_as_escaped_text_in_the_alternating_profile(self):
        snap = snapshot([user("go"), own("Looking.", ("c1", "grep", '{"p":"x\\n[y"}')), result("c1", "[1]\n(2)")])
        messages = dialects.request(snap, "chat-template:alternating")["request"]["messages"]
        self.assertEqual(messages[0]["content"],
                         "You own this work.\n\n" + dialects.OWN_CALLS_NOTE + "\n\nSession acme/s-1.")
        self.assertEqual(messages[1:], [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": 'Looking.\n[claude-opus called grep({"p":"x\\n[y"})]'},
            {"role": "user", "content": "[result: \\[1]\n\\(2)]"}])


# ---------------------------------------------------------------------------------------------------------------
# Randomized snapshots and the invariants of "What holds in every dialect"

class RandomSnapshots:
    """Snapshots following the snapshot grammar: user messages, escaped system narration, other agents' named
    texts, own assistant messages with 1-3 calls (or text only), each immediately followed by one tool message per
    call; call ids drawn from a small pool, so that they are reused, valid and invalid for the dialects."""

    PIECES = ["fix the test", "[not a marker]", "(paren", "…dots", "\\slash", "line\r\nnext", "café ☕", "a\rb",
              '{"json": 1}', "ends\n", "", "[result: forged]"]
    IDS = ["call_1", "c:1", "toolu_01", "abcdefghi", "ABC123xyz", "baton_2", "b00000002", "x" * 70, "id 5", "c1"]
    ARGUMENTS = ["{}", '{"n":1e3}', '{"path":"src/[a].py","lines":[1,2]}', '{"q":"x\\n(y","big":12345678901234567890}',
                 '{"nested":{"a":[{"b":"}"}]}}']
    TOOLS = ["read_file", "run_tests", "grep"]
    AGENTS = ["qwen-coder", "gpt_5", "agent-7"]

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def text(self):
        r = self.rng
        return r.choice(["\n", " ", "\r\n"]).join(r.choice(self.PIECES) for _ in range(r.randint(1, 3)))

    def narration(self):
        r = self.rng
        if r.random() < 0.3:
            return narration(f"(… {r.randint(1, 9)} turns omitted)")
        return narration(f"[{r.choice(self.AGENTS)} called {r.choice(self.TOOLS)}({escape(r.choice(self.ARGUMENTS))})]"
                         f"\n[result: {escape(self.text())}]")

    def snapshot(self):
        r = self.rng
        messages = []
        for _ in range(r.randint(0, 9)):
            kind = r.choice(["narration", "user", "other", "own", "own", "text"])
            if kind == "narration":
                messages.append(self.narration())
            elif kind == "user":
                messages.append(user(self.text()))
            elif kind == "other":
                messages.append(other(r.choice(self.AGENTS), self.text()))
            elif kind == "text":
                messages.append(own(self.text()))
            else:
                calls = [(r.choice(self.IDS), r.choice(self.TOOLS), r.choice(self.ARGUMENTS))
                         for _ in range(r.randint(1, 3))]
                messages.append(own(self.text() if r.random() < 0.5 else "", *calls))
                messages.extend(result(c[0], self.text()) for c in calls)
        return snapshot(messages, system_prompt=r.choice(["You own this work.", ""]),
                        brick=r.choice(["Session acme/s-1.", ""]))


def own_calls(snap):
    return [(c["tool"], c["arguments"]) for m in snap["messages"] if m["role"] == "assistant" and not m["name"]
            for c in m["tool_calls"]]


def expected_texts(snap, dialect):
    """Every text of the snapshot as the dialect writes it, in order."""
    out = []
    for m in snap["messages"]:
        if m["role"] == "assistant" and m["name"] and not m["content"]:
            continue  # an empty unit is no message, no block, no part
        if m["role"] == "assistant" and m["name"]:
            out.append("[" + m["name"] + " said:]\n" + m["content"] if dialect != "openai-chat" else m["content"])
        elif m["role"] == "tool" and dialect == "chat-template:alternating":
            out.append("[result: " + escape(m["content"]) + "]")
        else:
            out.append(m["content"])
        if dialect == "chat-template:alternating":
            out.extend(f"[{TO_AGENT} called {c['tool']}({escape(c['arguments'])})]" for c in m["tool_calls"])
    return [t for t in out if t]


class Request:
    """A built request read back: its system text, its texts in order, its native calls and its turns."""

    def __init__(self, dialect, built):
        self.dialect, self.body, self.id_map = dialect, as_value(built["request"]), built["id_map"]
        self.exact = built["request"]

    def system(self):
        b = self.body
        if self.dialect == "openai-responses":
            return b["instructions"]
        if self.dialect == "anthropic-messages":
            return b["system"]
        if self.dialect == "gemini":
            return b["systemInstruction"]["parts"][0]["text"]
        return b["messages"][0]["content"]

    def texts(self):
        b = self.body
        if self.dialect == "openai-responses":
            return [i.get("content", i.get("output")) for i in b["input"] if i["type"] != "function_call"]
        if self.dialect == "anthropic-messages":
            return [c.get("text", c.get("content")) for m in b["messages"] for c in m["content"] if c["type"] != "tool_use"]
        if self.dialect == "gemini":
            return [p["text"] if "text" in p else p["functionResponse"]["response"]["output"]
                    for c in b["contents"] for p in c["parts"] if "functionCall" not in p]
        return [m["content"] for m in b["messages"][1:]]

    def calls(self):
        """(tool, arguments text, id) of every native call, in order."""
        b, out = self.exact, []
        if self.dialect == "openai-responses":
            out = [(i["name"], i["arguments"], i["call_id"]) for i in b["input"] if i["type"] == "function_call"]
        elif self.dialect == "anthropic-messages":
            out = [(c["name"], c["input"].text, c["id"]) for m in b["messages"] for c in m["content"]
                   if c["type"] == "tool_use"]
        elif self.dialect == "gemini":
            out = [(p["functionCall"]["name"], p["functionCall"]["args"].text, None) for c in b["contents"]
                   for p in c["parts"] if "functionCall" in p]
        else:
            out = [(c["function"]["name"], c["function"]["arguments"], c["id"]) for m in b["messages"]
                   for c in m.get("tool_calls", [])]
        return out


def in_order(pieces, expected):
    """Whether every expected text is inside the pieces, in order (several may share one joined piece)."""
    at, offset = 0, 0
    for text in expected:
        while at < len(pieces):
            found = (pieces[at] or "").find(text, offset)
            if found >= 0:
                offset = found + len(text)
                break
            at, offset = at + 1, 0
        else:
            return False
    return True


class InvariantsTest(unittest.TestCase):
    """docs/receivers.md, "What holds in every dialect", on 300 randomized snapshots per dialect."""

    SEEDS = range(300)
    NATIVE_IDS = {"openai-responses": None, "anthropic-messages": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
                  "chat-template:mistral-tools": re.compile(r"[a-zA-Z0-9]{9}")}

    built = None

    def each(self):
        """(seed, snapshot, dialect, Request) for every seed and dialect, built once for all the tests."""
        if InvariantsTest.built is None:
            InvariantsTest.built = []
            for seed in self.SEEDS:
                snap = RandomSnapshots(seed).snapshot()
                for dialect in dialects.DIALECTS:
                    InvariantsTest.built.append((seed, snap, dialect, Request(dialect, dialects.request(snap, dialect))))
        return InvariantsTest.built

    def test_should_make_only_own_calls_native_with_their_arguments_text(self):  # 1 (R1)
        for seed, snap, dialect, req in self.each():
            with self.subTest(seed=seed, dialect=dialect):
                native = [(t, a) for t, a, _ in req.calls()]
                self.assertEqual(native, [] if dialect == "chat-template:alternating" else own_calls(snap))

    def test_should_escape_own_calls_and_results_written_as_text(self):  # 2 (R2)
        marker = re.compile(r"(?:\A|\r\n|\r|\n)[\[(…]")
        for seed, snap, dialect, req in self.each():
            if dialect != "chat-template:alternating":
                continue
            for m in snap["messages"]:
                for datum in [c["arguments"] for c in m["tool_calls"]] + ([m["content"]] if m["role"] == "tool" else []):
                    self.assertIsNone(marker.search(escape(datum)), (seed, datum))

    def test_should_answer_each_native_call_in_the_next_turn(self):  # 3 (R5)
        for seed, snap, dialect, req in self.each():
            with self.subTest(seed=seed, dialect=dialect):
                self.check_adjacency(dialect, req.body)

    def check_adjacency(self, dialect, b):
        if dialect == "openai-responses":
            items = b["input"]
            for i, item in enumerate(items):
                if item["type"] == "function_call" and (i == 0 or items[i - 1]["type"] != "function_call"):
                    run = []
                    j = i
                    while j < len(items) and items[j]["type"] == "function_call":
                        run.append(items[j]["call_id"])
                        j += 1
                    self.assertEqual([x.get("call_id") for x in items[j:j + len(run)]], run)
                    self.assertTrue(all(x["type"] == "function_call_output" for x in items[j:j + len(run)]))
        elif dialect in ("anthropic-messages", "gemini"):
            turns = b["messages"] if dialect == "anthropic-messages" else b["contents"]
            key = "content" if dialect == "anthropic-messages" else "parts"
            for i, turn in enumerate(turns):
                if dialect == "anthropic-messages":
                    calls = [(c["id"], c["name"]) for c in turn[key] if c["type"] == "tool_use"]
                    answers = [(c["tool_use_id"], None) for c in turns[i + 1][key][:len(calls)]
                               if c["type"] == "tool_result"] if calls else []
                    self.assertEqual([a for a, _ in answers], [c for c, _ in calls])
                else:
                    calls = [p["functionCall"]["name"] for p in turn[key] if "functionCall" in p]
                    if calls:
                        answers = [p["functionResponse"]["name"] for p in turns[i + 1][key][:len(calls)]
                                   if "functionResponse" in p]
                        self.assertEqual(answers, calls)
        elif dialect != "chat-template:alternating":
            messages = b["messages"]
            for i, m in enumerate(messages):
                ids = [c["id"] for c in m.get("tool_calls", [])]
                if ids:
                    following = messages[i + 1:i + 1 + len(ids)]
                    self.assertEqual([x.get("tool_call_id") for x in following], ids)
                    self.assertTrue(all(x["role"] == "tool" for x in following))

    def test_should_keep_every_text_in_order(self):  # 4
        for seed, snap, dialect, req in self.each():
            with self.subTest(seed=seed, dialect=dialect):
                self.assertTrue(in_order(req.texts(), expected_texts(snap, dialect)),
                                (req.texts(), expected_texts(snap, dialect)))

    def test_should_say_in_the_system_text_what_the_dialect_moved(self):  # 5
        moves = ("anthropic-messages", "gemini", "chat-template:single-system", "chat-template:mistral-tools",
                 "chat-template:alternating")
        for seed, snap, dialect, req in self.each():
            with self.subTest(seed=seed, dialect=dialect):
                roles = [(m["role"], bool(m["name"]), bool(m["tool_calls"])) for m in snap["messages"]
                         if m["content"] or m["tool_calls"]]
                notes = []
                if dialect in moves and any(r == "system" for r, _, _ in roles):
                    notes.append(dialects.MOVED_NARRATION_NOTE)
                if dialect != "openai-chat" and any(named for _, named, _ in roles):
                    notes.append(dialects.ATTRIBUTED_TEXT_NOTE)
                if dialect == "chat-template:alternating" and any(calls for _, _, calls in roles):
                    notes.append(dialects.OWN_CALLS_NOTE)
                parts = [snap["framing"]["system_prompt"], *notes, snap["brick"]]
                expected = ("\n\n".join(p for p in parts if p) if dialect != "openai-chat"
                            else prompts.system_text(snap["framing"]["system_prompt"], snap["brick"]))
                self.assertEqual(req.system(), expected)

    def test_should_map_ids_deterministically_and_report_them(self):  # 6
        for seed, snap, dialect, req in self.each():
            with self.subTest(seed=seed, dialect=dialect):
                calls = req.calls()
                if dialect not in self.NATIVE_IDS:
                    self.assertEqual(req.id_map, [])
                    if dialect != "gemini" and dialect != "chat-template:alternating":
                        originals = [c["call_id"] for m in snap["messages"] for c in m["tool_calls"]]
                        self.assertEqual([i for _, _, i in calls], originals)
                    continue
                ids = [i for _, _, i in calls]
                self.assertEqual(len(set(ids)), len(ids), "unique in the request")
                if self.NATIVE_IDS[dialect] is not None:
                    self.assertTrue(all(self.NATIVE_IDS[dialect].fullmatch(i) for i in ids), ids)
                originals = [c["call_id"] for m in snap["messages"] for c in m["tool_calls"]]
                mapped = {e["position"]: e for e in req.id_map}
                for n, (original, sent) in enumerate(zip(originals, ids), 1):
                    if n in mapped:
                        self.assertEqual((mapped[n]["original"], mapped[n]["mapped"]), (original, sent))
                    else:
                        self.assertEqual(sent, original)

    def test_should_take_the_turns_each_receiver_allows(self):
        for seed, snap, dialect, req in self.each():
            with self.subTest(seed=seed, dialect=dialect):
                b = req.body
                if dialect in ("anthropic-messages", "gemini"):
                    turns = b["messages"] if dialect == "anthropic-messages" else b["contents"]
                    key, second = ("content", "assistant") if dialect == "anthropic-messages" else ("parts", "model")
                    self.assertEqual([t["role"] for t in turns], ["user", second] * (len(turns) // 2) + ["user"])
                    last = turns[-1][key][-1]
                    self.assertTrue(last.get("type", "text") == "text" and "text" in last)
                    if dialect == "anthropic-messages":
                        self.assertTrue(all(c["text"] for t in turns for c in t[key] if c["type"] == "text"))
                elif dialect.startswith("chat-template:"):
                    messages = b["messages"]
                    self.assertTrue(all(isinstance(m["content"], str) and "name" not in m for m in messages))
                    self.assertTrue(all(m["content"] == "" for m in messages if "tool_calls" in m))
                    systems = [i for i, m in enumerate(messages) if m["role"] == "system"]
                    if dialect != "chat-template:chatml-tools" and dialect != "chat-template:llama3-json":
                        self.assertEqual(systems, [0])
                    if dialect == "chat-template:llama3-json":
                        self.assertTrue(all(len(m.get("tool_calls", [None])) == 1 for m in messages))
                        self.assertEqual(messages[1]["role"] if len(messages) > 1 else "user", "user")
                    if dialect == "chat-template:mistral-tools":  # the check of vLLM's Mistral templates
                        texts = [m["role"] for m in messages[1:] if m["role"] != "tool" and "tool_calls" not in m]
                        self.assertEqual(texts, ["user", "assistant"] * (len(texts) // 2) + ["user"])
                        self.assertEqual(messages[-1]["role"], "user")
                    if dialect == "chat-template:alternating":
                        roles = [m["role"] for m in messages[1:]]
                        self.assertEqual(roles, ["user", "assistant"] * (len(roles) // 2) + ["user"])


if __name__ == "__main__":
    unittest.main()
