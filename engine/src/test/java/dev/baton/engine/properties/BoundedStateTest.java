package dev.baton.engine.properties;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.EntryKind;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * "Bounded state" (docs/contract.md): the encoded per-session state does not grow with the session's length. A
 * realistic 10,000-turn session (texts of 200–2,000 characters, trails with results of 2–20 KB) is measured at
 * 1,000, 5,000 and 10,000 turns, and must stay below an absolute bound derived from the default policy
 * (see docs/state-bound.md).
 */
class BoundedStateTest {
    static final Policy POLICY = Policy.defaults();
    static final String[] AGENTS = {"qwen", "opus", "coder-2"};
    static final String[] TOOLS = {"read_file", "grep", "run_tests", "edit", "bash"};
    static final String CORPUS;

    static {
        String[] words = {"the", "test", "fails", "because", "OrderService", "timeout", "is", "set", "to", "100ms",
                "and", "the", "mock", "returns", "null;", "let", "me", "check", "src/main/java/Order.java", "{", "}",
                "assert", "retry", "=", "3", "//", "TODO", "fixed", "line", "42:", "Thread.sleep(100)", "é", "→"};
        Random r = new Random(7);
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 128 * 1024) {
            sb.append(words[r.nextInt(words.length)]);
            sb.append(r.nextInt(12) == 0 ? "\n" : " ");
        }
        CORPUS = sb.toString();
    }

    static String text(Random r, int min, int max) {
        int n = min + r.nextInt(max - min + 1);
        int at = r.nextInt(CORPUS.length() - n);
        return CORPUS.substring(at, at + n);
    }

    static String args(Random r) {
        return "{\"path\":\"src/main/java/dev/x/File" + r.nextInt(500) + ".java\",\"query\":\""
                + text(r, 10, 80).replace("\\", "").replace("\"", "").replace("\n", " ") + "\",\"limit\":1.0}";
    }

    /** Trail-era session: a USER turn now and then, assistant turns with 1–3 tool steps and a text. */
    static Turn realistic(Random r, long seq) {
        if (seq == 0 || r.nextInt(12) == 0) return Turn.of(seq, "user", Role.USER, text(r, 200, 2_000));
        String agent = AGENTS[r.nextInt(10) < 7 ? 0 : 1 + r.nextInt(2)];
        if (r.nextInt(8) == 0) return Turn.of(seq, agent, Role.ASSISTANT, text(r, 200, 2_000));
        List<ToolStep> steps = new ArrayList<>();
        int n = 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
            int k = r.nextInt(20);
            StepStatus st = k == 0 ? StepStatus.CLEARED : k < 3 ? StepStatus.ERROR : StepStatus.OK;
            steps.add(new ToolStep("c" + seq + "-" + i, TOOLS[r.nextInt(TOOLS.length)], args(r),
                    st == StepStatus.CLEARED ? null : text(r, 2_000, 20_000), st));
        }
        return new Turn(seq, agent, Role.ASSISTANT, text(r, 200, 2_000), steps, List.of(), null, null, null);
    }

    /** Measures the encoded state at the checkpoints. */
    static Map<Integer, Integer> measure(BiFunction<Random, Long, Turn> gen, int... checkpoints) {
        Random r = new Random(42);
        SessionState state = SessionState.empty();
        Map<Integer, Integer> sizes = new LinkedHashMap<>();
        int next = 0;
        for (long seq = 0; next < checkpoints.length; seq++) {
            state.offerTurn(gen.apply(r, seq), POLICY, 0L);
            if (seq + 1 == checkpoints[next]) {
                sizes.put(checkpoints[next], StateStorage.InMemory.of(state).dump().length);
                next++;
            }
        }
        return sizes;
    }

    /**
     * The bound derived from the default policy, for turns whose texts are at least 200 characters (UTF-8 at most 3
     * bytes per character of the window; JSON adds escapes and field names):
     * transcript window 400,000 chars (+ the oldest kept turn, up to 2,000) x 3 bytes
     * + the head (2 turns, text 2,000 + trail 3 x 20 KB each) + 2 expanded trails (3 x 20 KB each)
     * + inlined trails 163,840 bytes + digest 4,000 + manifest 4,000
     * + per kept turn overhead (at most 402,000 / 200 turns x 400 bytes of JSON names, ids and arguments).
     */
    static long bound() {
        long window = (400_000L + 2_000) * 3;
        long head = 2 * (2_000L * 3 + 3 * 20_480);
        long expanded = 2 * 3 * 20_480L;
        long inline = 163_840;
        long digestAndManifest = 4_000L * 3 + 4_000L * 3;
        long perTurn = (402_000L / 200) * 400;
        return window + head + expanded + inline + digestAndManifest + perTurn;
    }

    @Test
    void shouldKeepTheStateOfARealisticTenThousandTurnSessionBounded() {
        Map<Integer, Integer> sizes = measure(BoundedStateTest::realistic, 1_000, 5_000, 10_000);
        System.out.println("bounded state, realistic trail-era session (encoded bytes): " + sizes + "; bound " + bound());
        int at1k = sizes.get(1_000);
        int at10k = sizes.get(10_000);
        assertThat(at10k).as("does not grow with length").isLessThan((int) (1.5 * at1k) + 64 * 1024);
        assertThat(sizes.get(5_000)).isLessThan((int) (1.5 * at1k) + 64 * 1024);
        assertThat((long) at10k).as("absolute bound").isLessThan(bound());
    }

    /** After the task, trail-era turns without text (the agent only uses tools). */
    static Turn silentTools(Random r, long seq) {
        if (seq == 0) return Turn.of(seq, "user", Role.USER, text(r, 200, 2_000));
        List<ToolStep> steps = List.of(new ToolStep("c" + seq, TOOLS[r.nextInt(TOOLS.length)], args(r),
                text(r, 2_000, 20_000), StepStatus.OK));
        return new Turn(seq, AGENTS[0], Role.ASSISTANT, "", steps, List.of(), null, null, null);
    }

    /** Legacy history: after the task and a plan, bare tool calls without text, each answered by a TOOL turn. */
    static Turn legacy(Random r, long seq) {
        if (seq == 0) return Turn.of(seq, "user", Role.USER, text(r, 200, 2_000));
        if (seq % 2 == 1) {
            return new Turn(seq, AGENTS[0], Role.ASSISTANT, seq == 1 ? "plan" : "", List.of(),
                    List.of(new ToolCall("L" + seq, TOOLS[r.nextInt(TOOLS.length)], args(r))), null, null, null);
        }
        return new Turn(seq, AGENTS[0], Role.TOOL, text(r, 2_000, 20_000), List.of(), List.of(), "L" + (seq - 1), null,
                null);
    }

    @Test
    void shouldKeepTheStateOfToolOnlyTurnsBounded() {
        Map<Integer, Integer> sizes = measure(BoundedStateTest::silentTools, 1_000, 5_000, 10_000);
        System.out.println("bounded state, trail-era turns without text (encoded bytes): " + sizes);
        assertThat((long) sizes.get(10_000)).as("absolute bound").isLessThan(bound());
        assertThat(sizes.get(10_000)).as("does not grow with length").isLessThan((int) (1.5 * sizes.get(1_000)) + 64 * 1024);
    }

    @Test
    void shouldKeepTheStateOfALegacySessionBounded() {
        Map<Integer, Integer> sizes = measure(BoundedStateTest::legacy, 1_000, 5_000, 10_000);
        System.out.println("bounded state, legacy calls and TOOL turns (encoded bytes): " + sizes);
        assertThat(sizes.get(10_000)).as("does not grow with length").isLessThan((int) (1.5 * sizes.get(1_000)) + 64 * 1024);
        assertThat((long) sizes.get(10_000)).as("absolute bound").isLessThan(bound());
    }

    /** What the per-turn layout stores at one length: skeleton bytes, live turn entries and their bytes, all entries. */
    record Stored(int skeletonBytes, int turnEntries, long turnBytes, int entries, long entryBytes) {
    }

    /** Stores the session after every turn (only what each turn changed) and measures the store at the checkpoints. */
    static Map<Integer, Stored> measureStored(BiFunction<Random, Long, Turn> gen, int... checkpoints) {
        Random r = new Random(42);
        SessionState state = SessionState.empty();
        StateStorage.InMemory store = new StateStorage.InMemory();
        Map<Integer, Stored> out = new LinkedHashMap<>();
        int next = 0;
        for (long seq = 0; next < checkpoints.length; seq++) {
            state.offerTurn(gen.apply(r, seq), POLICY, 0L);
            store.store(state);
            if (seq + 1 == checkpoints[next]) {
                int entries = 0;
                long bytes = 0;
                for (EntryKind k : EntryKind.values()) {
                    entries += store.count(k);
                    bytes += store.bytes(k);
                }
                out.put(checkpoints[next], new Stored(store.skeleton.length, store.count(EntryKind.TURN),
                        store.bytes(EntryKind.TURN), entries, bytes));
                next++;
            }
        }
        return out;
    }

    @Test
    void shouldKeepTheSkeletonSmallAndTheLiveTurnEntriesFlatFromOneToTenThousandTurns() {
        for (Map.Entry<String, BiFunction<Random, Long, Turn>> g : Map.<String, BiFunction<Random, Long, Turn>>of(
                "realistic", BoundedStateTest::realistic, "tool-only", BoundedStateTest::silentTools,
                "legacy", BoundedStateTest::legacy).entrySet()) {
            Map<Integer, Stored> m = measureStored(g.getValue(), 1_000, 10_000);
            System.out.println("per-turn layout, " + g.getKey() + ": " + m);
            Stored at1k = m.get(1_000);
            Stored at10k = m.get(10_000);
            assertThat(at10k.skeletonBytes()).as(g.getKey() + ": skeleton in the low kilobytes").isLessThan(2_048);
            assertThat(at10k.skeletonBytes()).as(g.getKey() + ": skeleton flat").isLessThan(at1k.skeletonBytes() + 256);
            assertThat(at10k.turnEntries()).as(g.getKey() + ": live turn entries flat")
                    .isLessThan((int) (1.5 * at1k.turnEntries()) + 50);
            assertThat(at10k.turnBytes()).as(g.getKey() + ": live turn bytes flat")
                    .isLessThan((long) (1.5 * at1k.turnBytes()) + 64 * 1024);
            assertThat(at10k.entryBytes() + at10k.skeletonBytes()).as(g.getKey() + ": absolute bound").isLessThan(bound());
        }
    }
}
