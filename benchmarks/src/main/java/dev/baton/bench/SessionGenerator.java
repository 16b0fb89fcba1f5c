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

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Builds deterministic, realistic agent sessions for the benchmarks (the idea of the engine tests' {@code Sessions}
 * fixture, at scale): a USER task, then turns by several agents that take over from each other every few dozen
 * turns — texts of 200–2,000 characters, trail turns with 1–3 tool steps whose results are 1–20 KB (some errors,
 * some cleared), legacy bare tool calls answered by TOOL turns, follow-up USER turns and SYSTEM notes. (Those are
 * the {@link Sizes#REALISTIC} sizes; the end-to-end harness scales them down to fit its time budget.)
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

    /**
     * Sizes of generated content, in characters: assistant texts between {@code textMin} and {@code textMax}, tool
     * results between {@code resultMin} and {@code resultMax} (USER and SYSTEM texts scale with the texts).
     */
    public record Sizes(int textMin, int textMax, int resultMin, int resultMax) {
        /** The engine benchmarks' sizes: texts of 200–2,000 characters, results of 1–20 KB. */
        public static final Sizes REALISTIC = new Sizes(200, 2_000, 1_024, 20 * 1_024);

        /** Sizes scaled by {@code factor} (at least 10 characters each). */
        public Sizes scaled(double factor) {
            return new Sizes(Math.max(10, (int) (textMin * factor)), Math.max(20, (int) (textMax * factor)),
                    Math.max(10, (int) (resultMin * factor)), Math.max(20, (int) (resultMax * factor)));
        }
    }

    private final Random random;
    private final Sizes sizes;
    private boolean unicode;
    private long seq;
    private String owner;

    private SessionGenerator(long seed, Sizes sizes) {
        this.random = new Random(seed);
        this.sizes = sizes;
    }

    /** A session of exactly {@code turns} turns (seq 0..turns-1) with {@link Sizes#REALISTIC} sizes. */
    public static List<Turn> session(int turns, long seed) {
        return session(turns, seed, Sizes.REALISTIC);
    }

    /** A session of exactly {@code turns} turns (seq 0..turns-1), the same for the same seed and sizes. */
    public static List<Turn> session(int turns, long seed, Sizes sizes) {
        return new SessionGenerator(seed, sizes).generate(turns);
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

    /** A generator that hands out one session's turns one at a time (for streaming many sessions interleaved). */
    public static Stream stream(long seed, Sizes sizes) {
        return new Stream(new SessionGenerator(seed, sizes));
    }

    /** An endless session, turn by turn, in seq order. */
    public static final class Stream {
        private final SessionGenerator generator;
        private final ArrayDeque<Turn> pending = new ArrayDeque<>();

        private Stream(SessionGenerator generator) {
            this.generator = generator;
        }

        /** The next turn of the session. */
        public Turn next() {
            while (pending.isEmpty()) {
                List<Turn> batch = new ArrayList<>(2);
                if (generator.seq == 0) generator.start(batch);
                else generator.step(batch, Integer.MAX_VALUE);
                pending.addAll(batch);
            }
            return pending.poll();
        }
    }

    private List<Turn> generate(int n) {
        List<Turn> out = new ArrayList<>(n);
        start(out);
        while (out.size() < n) step(out, n);
        return out;
    }

    private void start(List<Turn> out) {
        owner = AGENTS.get(0);
        out.add(Turn.of(seq++, "user", Role.USER, text(scaleText(300), scaleText(1_500))));
    }

    /** Adds the next turn (or a legacy call and its answer, while {@code out} has fewer than {@code n}). */
    private void step(List<Turn> out, int n) {
        if (random.nextInt(40) == 0) owner = AGENTS.get(random.nextInt(AGENTS.size()));
        int dice = random.nextInt(100);
        if (dice < 35) {
            out.add(Turn.of(seq++, owner, Role.ASSISTANT, text(sizes.textMin(), sizes.textMax())));
        } else if (dice < 65) {
            out.add(trailTurn());
        } else if (dice < 78) {
            String callId = "call-" + seq;
            String text = random.nextBoolean() ? "" : text(sizes.textMin(), scaleText(800));
            List<ToolCall> calls = List.of(new ToolCall(callId, tool(), arguments()));
            out.add(new Turn(seq++, owner, Role.ASSISTANT, text, List.of(), calls, null, "local", "qwen-32b"));
            if (out.size() < n && random.nextInt(10) < 8) {
                out.add(new Turn(seq++, owner, Role.TOOL, result(), List.of(), List.of(), callId, null, null));
            }
        } else if (dice < 90) {
            out.add(Turn.of(seq++, "user", Role.USER, text(sizes.textMin(), scaleText(1_000))));
        } else if (dice < 95) {
            out.add(Turn.of(seq++, "platform", Role.SYSTEM, text(sizes.textMin(), scaleText(400))));
        } else {
            out.add(Turn.of(seq++, owner, Role.ASSISTANT, text(sizes.textMin(), scaleText(300))));
        }
    }

    private Turn trailTurn() {
        int steps = 1 + random.nextInt(3);
        List<ToolStep> trail = new ArrayList<>(steps);
        for (int i = 0; i < steps; i++) {
            String callId = "t" + seq + "-" + i;
            int kind = random.nextInt(20);
            if (kind == 0) trail.add(new ToolStep(callId, tool(), arguments(), null, StepStatus.CLEARED));
            else if (kind < 3) trail.add(new ToolStep(callId, tool(), arguments(),
                    "Error: " + text(Math.max(10, sizes.textMin() / 2), scaleText(600)), StepStatus.ERROR));
            else trail.add(new ToolStep(callId, tool(), arguments(), result(), StepStatus.OK));
        }
        String text = random.nextInt(3) == 0 ? "" : text(sizes.textMin(), sizes.textMax());
        return new Turn(seq++, owner, Role.ASSISTANT, text, trail, List.of(), null, "anthropic", "claude-x");
    }

    /** A text bound given for the realistic sizes, scaled like the assistant texts. */
    private int scaleText(int realistic) {
        return Math.max(sizes.textMin(), (int) ((long) realistic * sizes.textMax() / Sizes.REALISTIC.textMax()));
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
        int target = sizes.resultMin() + random.nextInt(sizes.resultMax() - sizes.resultMin() + 1);
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
