package dev.baton.receivers;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Deterministic sessions (fixed seeds) that hold what the dialects find hard, more densely than the recorded runs:
 * several agents, calls of the current and the legacy form, call ids reused across turns, results that answer no
 * call or never come, long results (CRLF, non-ASCII, lines that start with {@code [} or {@code (}), SYSTEM turns
 * whose lines look like narration, argument literals that a JavaScript number re-spells.
 */
final class GeneratedSessions {
    static final String TENANT = "generated";
    private static final String[] AGENTS = {"planner", "coder", "reviewer", "tester-2", "qwen2_5-coder"};
    private static final String[] TOOLS = {"bash", "read_file", "web_search", "apply_patch", "run_tests"};
    private static final String[] TRICKY_LINES = {
        "[coder called bash({\"cmd\":\"rm -rf /\"})]", "(hand-off: continue from here)", "[result: forged]",
        "\\already escaped", "… a line that starts with an ellipsis", "(12 turns omitted)", "[reviewer said:]",
        "plain text with ünïcödé and emoji 🚀", "tabs\tand  spaces", "CRLF line\r", "bare CR\rinside",
    };

    private GeneratedSessions() {
    }

    static List<RecordedSession> generate(long seed, int count) {
        List<RecordedSession> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(session(new Random(seed + i), i));
        return out;
    }

    private static RecordedSession session(Random r, int index) {
        SessionBuilder b = new SessionBuilder(TENANT, "gen-" + index, "generated:seed" + index);
        int agentCount = 1 + r.nextInt(4);
        List<String> agents = new ArrayList<>();
        for (int a = 0; a < agentCount; a++) agents.add(AGENTS[(index + a) % AGENTS.length]);
        if (r.nextBoolean()) b.system(tricky(r, 3));
        b.user("Task " + index + ": " + tricky(r, 2));
        int steps = 6 + r.nextInt(22);
        for (int s = 0; s < steps; s++) {
            String agent = agents.get(r.nextInt(agents.size()));
            switch (r.nextInt(9)) {
                case 0 -> b.system("[notice] step " + s + "\n" + tricky(r, 2));
                case 1 -> b.user("follow-up " + s + ": " + tricky(r, 1));
                case 2, 3 -> b.say(agent, "Thinking about step " + s + ".\n" + tricky(r, 2));
                case 4, 5, 6 -> b.trail(agent, r.nextBoolean() ? "" : "Done with step " + s + ".", steps(r, s));
                default -> legacy(b, r, agent, s);
            }
        }
        if (r.nextBoolean()) b.say(agents.get(0), "Final answer of session " + index + ".");
        return b.build();
    }

    private static List<ObjectNode> steps(Random r, int s) {
        List<ObjectNode> steps = new ArrayList<>();
        int n = 1 + r.nextInt(3);
        java.util.Set<String> used = new java.util.HashSet<>();
        for (int k = 0; k < n; k++) {
            ObjectNode step = SessionBuilder.JSON.createObjectNode();
            String id = callId(r, s, k);
            step.put("call_id", used.add(id) ? id : id + ":" + k); // reused across turns, never within one trail
            step.put("tool", TOOLS[r.nextInt(TOOLS.length)]);
            step.putRawValue("arguments", new com.fasterxml.jackson.databind.util.RawValue(arguments(r)));
            int kind = r.nextInt(10);
            if (kind == 0) step.putNull("result");
            else step.put("result", result(r, kind == 1));
            step.put("status", kind == 2 ? "ERROR" : "OK");
            steps.add(step);
        }
        return steps;
    }

    private static void legacy(SessionBuilder b, Random r, String agent, int s) {
        List<String[]> calls = new ArrayList<>();
        int n = 1 + r.nextInt(2);
        for (int k = 0; k < n; k++) calls.add(new String[]{callId(r, s, k), TOOLS[r.nextInt(TOOLS.length)], arguments(r)});
        b.legacyCalls(agent, r.nextBoolean() ? "" : "Calling tools at step " + s + ".", calls);
        if (r.nextInt(4) == 0) b.user("interjection before the results of step " + s);
        for (String[] c : calls) {
            if (r.nextInt(8) == 0) continue; // a call whose result never came
            b.tool(agent, c[0], result(r, false));
        }
        if (r.nextInt(6) == 0) b.tool(agent, null, "a result without a call id\n" + tricky(r, 1));
    }

    /** Reused ids (a small pool, as some runs and models produce) and fresh ones, some invalid for strict receivers. */
    private static String callId(Random r, int s, int k) {
        return switch (r.nextInt(5)) {
            case 0 -> "call_1";
            case 1 -> "toolu_01";
            case 2 -> "c:" + s + "." + k;
            case 3 -> "ABCDEFGHI";
            default -> "call_" + s + "_" + k + "_" + Long.toHexString(r.nextLong());
        };
    }

    private static String arguments(Random r) {
        return switch (r.nextInt(5)) {
            case 0 -> "{}";
            case 1 -> "{\"path\":\"src/Main.java\",\"line\":1e3,\"ratio\":1.50}";
            case 2 -> "{\"query\":\"ünïcödé \\\"quoted\\\"\",\"n\":12345678901234567890}";
            case 3 -> "{\"cmd\":\"echo '[x]'\\n(y)\",\"nested\":{\"a\":[1,2.0,-0.0]}}";
            default -> "{\"id\":" + r.nextInt(1000) + "}";
        };
    }

    private static String result(Random r, boolean longOne) {
        StringBuilder sb = new StringBuilder();
        int lines = longOne ? 400 + r.nextInt(800) : 1 + r.nextInt(6);
        for (int i = 0; i < lines; i++) {
            if (i > 0) sb.append(r.nextInt(5) == 0 ? "\r\n" : "\n");
            sb.append(r.nextInt(4) == 0 ? TRICKY_LINES[r.nextInt(TRICKY_LINES.length)] : "output line " + i + " ok");
        }
        return sb.toString();
    }

    private static String tricky(Random r, int lines) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            if (i > 0) sb.append('\n');
            sb.append(TRICKY_LINES[r.nextInt(TRICKY_LINES.length)]);
        }
        return sb.toString();
    }
}
