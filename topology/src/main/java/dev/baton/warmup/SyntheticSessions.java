package dev.baton.warmup;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A built-in, deterministic workload of realistic session events in the contract's JSON form (docs/contract.md,
 * "JSONL files"), for the warm-up only: a USER task, then assistant turns with and without tool trails (results of
 * 0.2–4 KB, some ERROR, some CLEARED), legacy tool calls answered by TOOL turns, USER follow-ups and SYSTEM notes, and
 * a hand-off every few turns, alternating LOCAL and CLAUDE_CLI targets, between four agents. The idea of the
 * benchmarks' {@code SessionGenerator}, kept small: it only has to make the JIT compile the same code paths as real
 * traffic, with the same shapes of data (non-ASCII words in one text in five included).
 */
final class SyntheticSessions {
    static final String TENANT = "baton-warmup";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] AGENTS = {"planner", "coder", "reviewer", "tester"};
    private static final String[] WORDS = ("the a to of and in is for that it on with this as be are was by an file "
            + "test build error fix function class method module config value request response cache index query "
            + "schema topic partition offset record state store commit retry timeout checked updated found failing "
            + "passing refactor rename import parse render encode decode we should now next because so let's run")
            .split(" ");
    private static final String[] UNICODE_WORDS = {"café", "naïve", "数据", "✓", "Größe", "→"};
    private static final String[] TOOLS = {"read_file", "grep", "run_tests", "edit_file", "bash", "git_diff"};

    private final Random random;
    private boolean unicode;
    private long clock = 1_767_225_600_000L;
    private int events;

    private SyntheticSessions(long seed) {
        this.random = new Random(seed);
    }

    /** One input record: its key ({@code tenant_id/session_id}) and its JSON line. */
    record Event(byte[] key, byte[] json) {
    }

    /**
     * The events, in order, of {@code sessions} sessions of {@code turns} turns each, a hand-off after every
     * {@code handoffEvery} turns: JSON lines as a producer writes them.
     */
    static List<Event> events(int sessions, int turns, int handoffEvery, long seed) {
        SyntheticSessions g = new SyntheticSessions(seed);
        List<Event> out = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            String session = "warmup-" + seed + "-" + s;
            byte[] key = (TENANT + "/" + session).getBytes(StandardCharsets.UTF_8);
            List<byte[]> lines = new ArrayList<>();
            g.session(session, turns, handoffEvery, lines);
            for (byte[] line : lines) out.add(new Event(key, line));
        }
        return out;
    }

    private void session(String session, int turns, int handoffEvery, List<byte[]> out) {
        String owner = AGENTS[0];
        out.add(turn(session, 0, "user", "USER", text(100, 600)));
        int handoffs = 0;
        for (long seq = 1; seq < turns; seq++) {
            int dice = random.nextInt(100);
            if (dice < 35) {
                out.add(turn(session, seq, owner, "ASSISTANT", text(80, 1_500)));
            } else if (dice < 65) {
                ObjectNode e = turnNode(session, seq, owner, "ASSISTANT", random.nextInt(3) == 0 ? "" : text(80, 800));
                ArrayNode trail = ((ObjectNode) e.get("turn")).putArray("trail");
                int steps = 1 + random.nextInt(3);
                for (int i = 0; i < steps; i++) {
                    ObjectNode step = trail.addObject();
                    step.put("call_id", "t" + seq + "-" + i);
                    step.put("tool", tool());
                    step.set("arguments", arguments());
                    int kind = random.nextInt(20);
                    if (kind == 0) {
                        step.put("status", "CLEARED");
                    } else {
                        step.put("result", kind < 3 ? "Error: " + text(40, 300) : result());
                        step.put("status", kind < 3 ? "ERROR" : "OK");
                    }
                }
                ((ObjectNode) e.get("turn")).put("provider", "anthropic").put("model", "claude-x");
                out.add(bytes(e));
            } else if (dice < 78 && seq + 1 < turns) {
                String callId = "call-" + seq;
                ObjectNode e = turnNode(session, seq, owner, "ASSISTANT", random.nextBoolean() ? "" : text(40, 400));
                ObjectNode call = ((ObjectNode) e.get("turn")).putArray("tool_calls").addObject();
                call.put("call_id", callId);
                call.put("tool", tool());
                call.set("arguments", arguments());
                out.add(bytes(e));
                seq++;
                ObjectNode answer = turnNode(session, seq, owner, "TOOL", result());
                ((ObjectNode) answer.get("turn")).put("tool_call_id", callId);
                out.add(bytes(answer));
            } else if (dice < 90) {
                out.add(turn(session, seq, "user", "USER", text(40, 500)));
            } else {
                out.add(turn(session, seq, "platform", "SYSTEM", text(40, 200)));
            }
            if (seq % handoffEvery == handoffEvery - 1) {
                String to = AGENTS[(handoffs + 1) % AGENTS.length];
                out.add(handoff(session, "h-" + session + "-" + handoffs, owner, to,
                        handoffs % 3 == 2 ? "CLAUDE_CLI" : "LOCAL"));
                owner = to;
                handoffs++;
            }
        }
    }

    private byte[] turn(String session, long seq, String agent, String role, String text) {
        return bytes(turnNode(session, seq, agent, role, text));
    }

    private ObjectNode turnNode(String session, long seq, String agent, String role, String text) {
        ObjectNode e = envelope(session);
        ObjectNode t = e.putObject("turn");
        t.put("seq", seq);
        t.put("agent", agent);
        t.put("role", role);
        t.put("text", text);
        return e;
    }

    private byte[] handoff(String session, String id, String from, String to, String target) {
        ObjectNode e = envelope(session);
        ObjectNode h = e.putObject("handoff");
        h.put("handoff_id", id);
        h.put("from_agent", from);
        h.put("to_agent", to);
        h.put("target", target);
        h.put("brief", text(40, 300));
        return bytes(e);
    }

    private ObjectNode envelope(String session) {
        ObjectNode e = JSON.createObjectNode();
        e.put("event_id", session + ".e" + events++);
        e.put("tenant_id", TENANT);
        e.put("session_id", session);
        e.put("occurred_at", Instant.ofEpochMilli(clock += 1_000).toString());
        return e;
    }

    private ObjectNode arguments() {
        ObjectNode a = JSON.createObjectNode();
        a.put("path", "src/main/java/app/Module" + random.nextInt(500) + ".java");
        a.put("line", random.nextInt(2_000));
        a.put("pattern", word());
        return a;
    }

    private String tool() {
        return TOOLS[random.nextInt(TOOLS.length)];
    }

    private String result() {
        int target = 200 + random.nextInt(3_800);
        unicode = random.nextInt(5) == 0;
        StringBuilder sb = new StringBuilder(target + 100);
        int line = 1;
        while (sb.length() < target) {
            sb.append(line++).append(": ");
            for (int i = 4 + random.nextInt(10); i > 0; i--) sb.append(word()).append(' ');
            sb.append('\n');
        }
        return sb.toString();
    }

    private String text(int min, int max) {
        int target = min + random.nextInt(max - min + 1);
        unicode = random.nextInt(5) == 0;
        StringBuilder sb = new StringBuilder(target + 16);
        while (sb.length() < target) sb.append(word()).append(random.nextInt(12) == 0 ? ". " : " ");
        sb.setLength(target);
        return sb.toString();
    }

    private String word() {
        if (unicode && random.nextInt(20) == 0) return UNICODE_WORDS[random.nextInt(UNICODE_WORDS.length)];
        return WORDS[random.nextInt(WORDS.length)];
    }

    private static byte[] bytes(ObjectNode e) {
        try {
            return JSON.writeValueAsString(e).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException x) {
            throw new IllegalStateException(x);
        }
    }
}
