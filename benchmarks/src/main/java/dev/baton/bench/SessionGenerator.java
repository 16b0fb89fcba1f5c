package dev.baton.bench;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.SessionState;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Builds deterministic, realistic agent sessions for the benchmarks (the idea of the engine tests' {@code Sessions}
 * fixture, at scale): a USER task, then turns by several agents that take over from each other every few dozen
 * turns — texts of 200–2,000 characters, trail turns with 1–3 tool steps whose results are 1–20 KB (some errors,
 * some cleared), legacy bare tool calls answered by TOOL turns, follow-up USER turns and SYSTEM notes.
 *
 * <p>The same seed and size always give the same session, so compacted and full states are built from identical
 * input and runs are comparable.
 */
public final class SessionGenerator {
    /** Agents that take turns owning the session. */
    public static final List<String> AGENTS = List.of("qwen", "claude", "coder", "reviewer");

    private static final String[] WORDS = ("the a to of and in is for that it on with this as be are was by an "
            + "file test build error fix function class method module config value request response cache index "
            + "query schema topic partition offset record state store commit retry timeout latency throughput "
            + "checked updated found failing passing refactor rename import export parse render encode decode "
            + "we should now then next because however so let's run look see try check compare measure").split(" ");
    /** Non-ASCII words: one text or result in five contains some (the rest stay ASCII, as most tool output is). */
    private static final String[] UNICODE_WORDS = {"café", "naïve", "数据", "✓", "Größe", "→"};
    private static final String[] TOOLS = {"read_file", "grep", "run_tests", "list_dir", "edit_file", "bash",
            "search_docs", "git_diff"};

    private final Random random;
    private boolean unicode;
    private long seq;
    private String owner;

    private SessionGenerator(long seed) {
        this.random = new Random(seed);
    }

    /** A session of exactly {@code turns} turns (seq 0..turns-1), the same for the same seed. */
    public static List<Turn> session(int turns, long seed) {
        return new SessionGenerator(seed).generate(turns);
    }

    /** Applies every turn, in order, to {@code state}; returns it. */
    public static SessionState apply(List<Turn> turns, SessionState state, Policy policy) {
        for (Turn t : turns) state.offerTurn(t, policy, 0L);
        return state;
    }

    /** A LOCAL hand-off from the session's last owner to another agent (transcript, brick, framing, parity). */
    public static Handoff localHandoff() {
        return new Handoff("bench-local", "qwen", "reviewer", Target.LOCAL, "Please review and finish.", null, null);
    }

    /** A CLAUDE_CLI hand-off (brick only, R11). */
    public static Handoff cliHandoff() {
        return new Handoff("bench-cli", "qwen", "claude", Target.CLAUDE_CLI, "Please take over.", null, null);
    }

    private List<Turn> generate(int n) {
        List<Turn> out = new ArrayList<>(n);
        owner = AGENTS.get(0);
        out.add(Turn.of(seq++, "user", Role.USER, text(300, 1_500)));
        while (out.size() < n) {
            if (random.nextInt(40) == 0) owner = AGENTS.get(random.nextInt(AGENTS.size()));
            int dice = random.nextInt(100);
            if (dice < 35) {
                out.add(Turn.of(seq++, owner, Role.ASSISTANT, text(200, 2_000)));
            } else if (dice < 65) {
                out.add(trailTurn());
            } else if (dice < 78) {
                String callId = "call-" + seq;
                out.add(new Turn(seq++, owner, Role.ASSISTANT, random.nextBoolean() ? "" : text(200, 800),
                        List.of(), List.of(new ToolCall(callId, tool(), arguments())), null, "local", "qwen-32b"));
                if (out.size() < n && random.nextInt(10) < 8) {
                    out.add(new Turn(seq++, owner, Role.TOOL, result(), List.of(), List.of(), callId, null, null));
                }
            } else if (dice < 90) {
                out.add(Turn.of(seq++, "user", Role.USER, text(200, 1_000)));
            } else if (dice < 95) {
                out.add(Turn.of(seq++, "platform", Role.SYSTEM, text(200, 400)));
            } else {
                out.add(Turn.of(seq++, owner, Role.ASSISTANT, text(200, 300)));
            }
        }
        return out;
    }

    private Turn trailTurn() {
        int steps = 1 + random.nextInt(3);
        List<ToolStep> trail = new ArrayList<>(steps);
        for (int i = 0; i < steps; i++) {
            String callId = "t" + seq + "-" + i;
            int kind = random.nextInt(20);
            if (kind == 0) trail.add(new ToolStep(callId, tool(), arguments(), null, StepStatus.CLEARED));
            else if (kind < 3) trail.add(new ToolStep(callId, tool(), arguments(), "Error: " + text(100, 600),
                    StepStatus.ERROR));
            else trail.add(new ToolStep(callId, tool(), arguments(), result(), StepStatus.OK));
        }
        String text = random.nextInt(3) == 0 ? "" : text(200, 2_000);
        return new Turn(seq++, owner, Role.ASSISTANT, text, trail, List.of(), null, "anthropic", "claude-x");
    }

    private String tool() {
        return TOOLS[random.nextInt(TOOLS.length)];
    }

    /** Compact JSON object arguments, as the decoder hands them to the engine. */
    private String arguments() {
        return "{\"path\":\"src/main/java/dev/app/Module" + random.nextInt(500) + ".java\",\"line\":"
                + random.nextInt(2_000) + ",\"pattern\":\"" + word() + "\"}";
    }

    /** A tool result of 1–20 KB: numbered source or log lines. */
    private String result() {
        int target = 1_024 + random.nextInt(19 * 1_024);
        unicode = random.nextInt(5) == 0;
        StringBuilder sb = new StringBuilder(target + 100);
        int line = 1;
        while (sb.length() < target) {
            sb.append(line++).append(": ");
            int words = 4 + random.nextInt(10);
            for (int i = 0; i < words; i++) sb.append(word()).append(' ');
            sb.append('\n');
        }
        return sb.toString();
    }

    private String text(int min, int max) {
        int target = min + random.nextInt(max - min + 1);
        unicode = random.nextInt(5) == 0;
        StringBuilder sb = new StringBuilder(target + 16);
        while (sb.length() < target) {
            sb.append(word());
            sb.append(random.nextInt(12) == 0 ? ". " : " ");
        }
        sb.setLength(target);
        return sb.toString();
    }

    private String word() {
        if (unicode && random.nextInt(20) == 0) return UNICODE_WORDS[random.nextInt(UNICODE_WORDS.length)];
        return WORDS[random.nextInt(WORDS.length)];
    }
}
