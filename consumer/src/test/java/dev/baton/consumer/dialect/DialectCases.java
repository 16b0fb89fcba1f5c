package dev.baton.consumer.dialect;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * Hand-written JSON-form snapshots, each pinning down rules of docs/receivers.md; every one is run through every
 * dialect into examples/consumers/testdata/dialects.jsonl ({@link DialectVectorsTest}). Written as text so that the
 * arguments' number literals stay as written.
 */
final class DialectCases {

    record Case(String name, String reason, String snapshot) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private DialectCases() {
    }

    static String q(String text) {
        return new TextNode(text).toString();
    }

    static String user(String text) {
        return "{\"role\":\"user\",\"name\":null,\"content\":" + q(text) + ",\"tool_calls\":[],\"tool_call_id\":null}";
    }

    static String sys(String text) {
        return "{\"role\":\"system\",\"name\":null,\"content\":" + q(text) + ",\"tool_calls\":[],\"tool_call_id\":null}";
    }

    static String other(String name, String text) {
        return "{\"role\":\"assistant\",\"name\":" + q(name) + ",\"content\":" + q(text) + ",\"tool_calls\":[],\"tool_call_id\":null}";
    }

    static String own(String text, String... calls) {
        return "{\"role\":\"assistant\",\"name\":null,\"content\":" + q(text) + ",\"tool_calls\":[" + String.join(",", calls)
                + "],\"tool_call_id\":null}";
    }

    static String call(String id, String tool, String argumentsJson) {
        return "{\"call_id\":" + q(id) + ",\"tool\":" + q(tool) + ",\"arguments\":" + argumentsJson + "}";
    }

    static String tool(String id, String text) {
        return "{\"role\":\"tool\",\"name\":null,\"content\":" + q(text) + ",\"tool_calls\":[],\"tool_call_id\":" + q(id) + "}";
    }

    static String snapshot(String handoff, String target, String brick, String... messages) {
        return "{\"snapshot_id\":\"acme/s-1/" + handoff + "\",\"tenant_id\":\"acme\",\"session_id\":\"s-1\",\"handoff_id\":"
                + q(handoff) + ",\"from_agent\":\"qwen-coder\",\"to_agent\":\"claude-opus\",\"target\":" + q(target)
                + ",\"as_of_seq\":9,\"turn_count\":10,\"occurred_at\":\"2026-11-30T09:00:09Z\",\"framing\":{\"kind\":"
                + "\"CONTINUITY\",\"system_prompt\":\"You own this work.\"},\"brick\":" + q(brick) + ",\"messages\":["
                + String.join(",", messages) + "],\"retention\":{\"expanded_seqs\":[],\"inlined_seqs\":[],"
                + "\"manifest_seqs\":[],\"manifest_unlisted\":0,\"trail_bytes\":0},\"truncations\":[],\"stats\":"
                + "{\"message_chars\":0,\"brick_chars\":0,\"estimated_tokens\":0},\"parity\":{\"reference_agent\":"
                + "\"qwen-coder\",\"reference_items\":0,\"covered_items\":0}}";
    }

    static String local(String handoff, String... messages) {
        return snapshot(handoff, "LOCAL", "Session acme/s-1.", messages);
    }

    static final String NARRATED = "[qwen-coder called grep({\"pattern\":\"flaky\"})]\n[result: tests/test_io.py:12]";

    static List<Case> all() {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("basic", "user, another agent's narrated step, own text, own call and result, user again",
                local("h01", user("Fix the flaky test."), sys(NARRATED), own("I will run it."),
                        own("", call("call_1", "run_tests", "{\"repeat\":20}")), tool("call_1", "3 failed"),
                        user("Go on."))));
        cases.add(new Case("reused-ids", "two calls of different turns with the same id c1: each result answers the call"
                + " of the assistant message before it; Anthropic/Responses/Mistral map the second",
                local("h02", user("Run twice."), own("", call("c1", "run_tests", "{}")), tool("c1", "1 failed"),
                        own("", call("c1", "run_tests", "{}")), tool("c1", "0 failed"), user("Good."))));
        cases.add(new Case("reused-id-in-one-message", "two calls of one message share an id: results answer them in order",
                local("h03", user("Read both."), own("", call("dup", "read", "{\"path\":\"a\"}"), call("dup", "read",
                        "{\"path\":\"b\"}")), tool("dup", "A"), tool("dup", "B"), user("Thanks."))));
        cases.add(new Case("odd-ids", "ids with ':' and '.', one over 64 characters, one already named baton_2 (kept,"
                + " so the new id of call 2 skips to baton_3)",
                local("h04", user("Go."), own("", call("toolu:01", "a", "{}")), tool("toolu:01", "ra"),
                        own("", call("call.2", "b", "{}")), tool("call.2", "rb"),
                        own("", call("x".repeat(65), "c", "{}")), tool("x".repeat(65), "rc"),
                        own("", call("baton_2", "d", "{}")), tool("baton_2", "rd"), user("Done?"))));
        cases.add(new Case("mistral-ids", "a valid nine-character id is kept; a new Mistral id skips one kept in the request",
                local("h05", user("Go."), own("", call("abcdefgh1", "a", "{}")), tool("abcdefgh1", "ra"),
                        own("", call("short", "b", "{}")), tool("short", "rb"),
                        own("", call("b00000003", "c", "{}")), tool("b00000003", "rc"),
                        own("", call("c-3", "d", "{}")), tool("c-3", "rd"), user("Next."))));
        cases.add(new Case("other-agent-text", "another agent's text mid-conversation: name, or the attribution line and note",
                local("h06", user("Review this."), other("qwen-coder", "I think the lock is the issue."),
                        own("Agreed, checking."), user("Please fix."))));
        cases.add(new Case("narration-mid", "narration between own turns and between a result and a user message",
                local("h07", user("Start."), own("", call("k1", "ls", "{}")), tool("k1", "a b"),
                        sys("(earlier conversation omitted — 3 turns, seq 4–6; full history in the session log)"),
                        own("Continuing."), sys(NARRATED), user("Status?"))));
        cases.add(new Case("opens-with-assistant", "the transcript opens with an own assistant text: opening user line",
                local("h08", own("Picking up where I was."), user("Continue."))));
        cases.add(new Case("opens-with-narration", "the transcript opens with a marker of missing turns",
                local("h09", sys("(turns missing — seq 0–3)"), user("Where are we?"))));
        cases.add(new Case("ends-with-assistant-text", "the last message is the receiver's own text: continuation line",
                local("h10", user("Explain."), own("It is a race."))));
        cases.add(new Case("ends-with-tool-results", "the last messages are tool results: continuation after them",
                local("h11", user("Run."), own("", call("r1", "run_tests", "{}")), tool("r1", "ok"))));
        cases.add(new Case("empty-transcript", "no messages at all: system text and the continuation line",
                local("h12")));
        cases.add(new Case("several-calls", "one assistant message with three calls, three results in order (llama3 splits)",
                local("h13", user("Look around."), own("Three reads.", call("m1", "read", "{\"p\":1}"),
                        call("m2", "read", "{\"p\":2}"), call("m3", "stat", "{\"p\":3}")), tool("m1", "one"),
                        tool("m2", "two"), tool("m3", "three"), user("And?"))));
        cases.add(new Case("empty-tool-result", "a call whose result is empty text: the result is still sent",
                local("h14", user("Touch it."), own("", call("e1", "touch", "{\"f\":\"x\"}")), tool("e1", ""),
                        user("Done?"))));
        cases.add(new Case("number-literals", "1e3, 1.10 and a big integer in arguments stay as written (input/args raw)",
                local("h15", user("Compute."), own("", call("n1", "calc", "{\"repeat\":1e3,\"ratio\":1.10,\"big\":"
                        + "123456789012345678901234567890,\"s\":\"caf\\u00e9 \\\"q\\\"\"}")), tool("n1", "42"), user("Ok."))));
        cases.add(new Case("escaped-system-lines", "a SYSTEM turn whose lines start with '[' already escaped; a result with"
                + " lines starting with '[', '(' and '\\' (escaped once more where it becomes a line of text)",
                local("h16", user("Check."), sys("[SYSTEM] deploy window\n\\[not a marker]\n\\(nor this)"),
                        own("", call("s1", "cat", "{\"f\":\"log\"}")), tool("s1", "[INFO] start\r\n(paren)\r…\n\\back"),
                        user("Next."))));
        cases.add(new Case("mistral-filler", "an own text, then a call of the next turn: mistral-tools inserts an empty"
                + " user message between them; the turn's text after the results",
                local("h17", user("Fix it."), own("First I look."), own("", call("f1", "read", "{}")), tool("f1", "code"),
                        own("Found it."), user("Patch."))));
        cases.add(new Case("user-call-user", "a user message, a call without text, then narration and user: an empty"
                + " assistant message after the results in mistral-tools",
                local("h18", user("Go."), own("", call("g1", "ls", "{}")), tool("g1", "x"), sys(NARRATED), user("More."))));
        cases.add(new Case("text-and-calls-one-message", "an own message carrying text and a call, then its own text of"
                + " the next turn",
                local("h19", user("Go."), own("Let me check.", call("t1", "ls", "{}")), tool("t1", "x"), own("Checked."),
                        own("Now the tests.", call("t2", "run_tests", "{}")), tool("t2", "ok"), user("Great."))));
        cases.add(new Case("runs-of-one-role", "consecutive user, narration and other-agent texts: joined or kept apart",
                local("h20", user("One."), user("Two."), sys("[SYSTEM] note"), other("qwen-coder", "Mine."),
                        other("reviewer-1", "Also mine."), own("Own."), user("Three."))));
        cases.add(new Case("empty-brick", "no brick: the system text is the prompt and the notes only",
                snapshot("h21", "LOCAL", "", user("Hi."), other("qwen-coder", "Hello."))));
        cases.add(new Case("claude-cli", "a CLAUDE_CLI snapshot: the cli_prompt line in every dialect (R11)",
                snapshot("h22", "CLAUDE_CLI", "Session acme/s-1.")));
        return cases;
    }

    /** Every case is valid JSON (a typo in a case should fail fast, not produce an odd vector). */
    static void validate() throws Exception {
        for (Case c : all()) {
            JSON.readTree(c.snapshot());
        }
    }
}
