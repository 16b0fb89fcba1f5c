package dev.baton.engine.state;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;

import java.util.ArrayList;
import java.util.List;

/**
 * The session behind the committed golden bytes of the stored formats (src/test/resources/state/): every part of the
 * state is non-empty — head, compacted body with digest lines, manifested and retained trails, an open and an
 * answered legacy call, a recorded missing range, a held turn, a waiting hand-off, remembered hand-off ids.
 * Deterministic: the golden files were written from exactly these events; a test replays them and compares.
 */
public final class StoredFormatScenario {
    /** Small budgets so that 60 turns already compact, manifest and overflow the digest. */
    public static final Policy POLICY = Policy.builder().transcriptBudgetChars(2_000).digestBudgetChars(600)
            .inlineTrailBytes(300).manifestCapChars(400).brickBudgetCliChars(1_500).brickBudgetLocalChars(1_000).maxHeldTurns(10)
            .build();

    private StoredFormatScenario() {
    }

    /** The turns, in the order they are offered (seq 41 is never sent: a gap; seq 63 arrives before 62). */
    public static List<Turn> turns() {
        List<Turn> out = new ArrayList<>();
        out.add(Turn.of(0, "user", Role.USER, "Fix the flaky OrderService test — it times out \"sometimes\"."));
        out.add(new Turn(1, "qwen", Role.ASSISTANT, "Looking at the test first.",
                List.of(new ToolStep("c1", "read_file", "{\"path\":\"OrderServiceTest.java\"}", "class OrderServiceTest {}",
                        StepStatus.OK)), List.of(), null, "acme-llm", "q-1"));
        for (long s = 2; s < 64; s++) {
            if (s == 41 || s == 62) continue;
            out.add(turn(s));
        }
        out.add(turn(62));
        return out;
    }

    static Turn turn(long s) {
        String agent = s % 3 == 0 ? "opus" : "qwen";
        if (s % 11 == 0) return Turn.of(s, "user", Role.USER, "Also check line " + s + " é → ok");
        if (s == 20) {
            return new Turn(s, agent, Role.ASSISTANT, "", List.of(),
                    List.of(new ToolCall("L1", "grep", "{\"q\":\"timeout\"}"), new ToolCall("L2", "bash", "{\"cmd\":\"ls\"}")),
                    null, null, null);
        }
        if (s == 21) return new Turn(s, agent, Role.TOOL, "found 3 matches", List.of(), List.of(), "L1", null, null);
        if (s == 50) {
            return new Turn(s, agent, Role.ASSISTANT, "legacy again", List.of(),
                    List.of(new ToolCall("L9", "run_tests", "{}")), null, null, null);
        }
        if (s % 4 == 0) {
            return new Turn(s, agent, Role.ASSISTANT, "Step " + s + ": ran the tests.",
                    List.of(new ToolStep("c" + s, "run_tests", "{\"n\":" + s + "}", "FAILED x" + s, StepStatus.ERROR),
                            new ToolStep("d" + s, "edit", "{\"line\":" + s + "}", null, StepStatus.CLEARED)),
                    List.of(), null, null, null);
        }
        return Turn.of(s, agent, Role.ASSISTANT, "Turn " + s + " says something about Thread.sleep(" + s + ").");
    }

    /** Hand-offs offered after the turns: two answered at once, one waiting for seq 70. */
    public static List<Handoff> handoffs() {
        return List.of(
                new Handoff("h-1", "qwen", "opus", Target.LOCAL, "take over", null, null),
                new Handoff("h-2", "opus", "qwen", Target.CLAUDE_CLI, null, 30L, 1_500),
                new Handoff("h-3", "qwen", "opus", Target.LOCAL, null, 70L, null));
    }

    /** Applies the scenario to {@code state} at fixed times. */
    public static SessionState apply(SessionState state) {
        long now = 1_700_000_000_000L;
        for (Turn t : turns()) {
            state.touch(now);
            state.offerTurn(t, POLICY, now);
            now += 1_000;
        }
        for (Handoff h : handoffs()) {
            state.touch(now);
            state.offerHandoff(h, now - 500, POLICY, now);
            now += 1_000;
        }
        // seq 65 arrives before 64: held
        state.touch(now);
        state.offerTurn(Turn.of(65, "qwen", Role.ASSISTANT, "held until 64 comes"), POLICY, now);
        return state;
    }
}
