package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.TruncationKind;
import org.junit.jupiter.api.Test;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * R6 — "the brick is an addition, not a filter: every truncation is explicit — results over the per-result cap
 * (raised 500 → 1500) get … (truncated — full result in the session history), trimmed bricks get (earlier activity
 * omitted — N turns), cleared capture-time results say so. Trail-era turns render their tool activity in the brick
 * (calls + results), not just final text. A single over-budget turn keeps a head+tail of itself" (ADR 0093, C).
 */
class R6BrickTest {
    private static final Handoff LOCAL = new Handoff("h", "qwen", "opus", Target.LOCAL, "take it from here", null, null);

    @Test
    void shouldSaySessionTaskBriefAndNewestActivityWithToolCallsAndResults() {
        Snapshot s = Sessions.create().user("Fix the login bug").say("qwen", "plan")
                .act("qwen", "found it", ok("c1", "grep", "{\"q\":\"login\"}", "auth.py:12")).render(LOCAL);
        assertThat(s.brick().lines()).startsWith(
                "[session s1 of tenant acme: 3 turns; agents: qwen]",
                "[task] Fix the login bug",
                "[brief] take it from here");
        assertThat(s.brick()).endsWith("[seq 2 qwen] found it\n[qwen called grep({\"q\":\"login\"})]\n[result: auth.py:12]");
        assertThat(s.brick().length()).isLessThanOrEqualTo(3_000);
    }

    @Test
    void shouldTruncateResultsOver1500WithTheContractLine() {
        String big = "r".repeat(2_000);
        Snapshot s = Sessions.create().user("t").act("qwen", "", ok("c1", "cat", "{}", big))
                .render(new Handoff("h", null, "opus", Target.CLAUDE_CLI, null, null, null));
        assertThat(s.brick()).contains("[result: " + "r".repeat(1_500) + "]\n… (truncated — full result in the session history)");
        assertThat(s.truncations()).anyMatch(t -> t.kind() == TruncationKind.BRICK_RESULT_TRUNCATED && t.count() == 500);
    }

    @Test
    void shouldReplaceOlderActivityThatDoesNotFitWithOneLine() {
        Sessions ses = Sessions.create().user("t");
        for (int i = 0; i < 50; i++) ses.say("qwen", "update " + i + " " + "u".repeat(100));
        Snapshot s = ses.render(LOCAL);
        assertThat(s.brick().length()).isLessThanOrEqualTo(3_000);
        String omitted = s.brick().lines().filter(l -> l.startsWith("(earlier activity omitted — ")).findFirst().orElseThrow();
        long n = Long.parseLong(omitted.replaceAll("\\D+", " ").trim().split(" ")[0]);
        assertThat(omitted).isEqualTo("(earlier activity omitted — " + n + " turns)");
        assertThat(s.brick()).contains("update 49 ").doesNotContain("update " + (50 - n) + " u");
        assertThat(s.truncations()).anyMatch(t -> t.kind() == TruncationKind.BRICK_ACTIVITY_OMITTED && t.count() == n);
    }

    @Test
    void shouldKeepAHeadAndTailOfASingleTurnThatAloneExceedsTheBudget() {
        String huge = "START" + "h".repeat(10_000) + "END";
        Snapshot s = Sessions.create().user("t").say("qwen", huge).render(LOCAL);
        assertThat(s.brick().length()).isLessThanOrEqualTo(3_000);
        assertThat(s.brick()).contains("[seq 1 qwen] START").endsWith("END").contains("of this turn cut");
        assertThat(s.truncations()).anyMatch(t -> t.kind() == TruncationKind.BRICK_TURN_TRIMMED && t.seqFrom() == 1);
    }

    @Test
    void shouldSayClearedResults() {
        Snapshot s = Sessions.create().user("t").act("qwen", "", cleared("c1", "read", "{}")).render(LOCAL);
        assertThat(s.brick()).contains("[qwen called read({})]\n[result cleared at capture time]");
        assertThat(s.truncations()).anyMatch(t -> t.kind() == TruncationKind.RESULT_CLEARED);
    }

    @Test
    void shouldExcerptTaskAndBriefWithAnEllipsisAndNotListThem() {
        String task = "T".repeat(800);
        String brief = "B".repeat(1_500);
        Snapshot s = Sessions.create().user(task).say("qwen", "ok")
                .render(new Handoff("h", "qwen", "opus", Target.CLAUDE_CLI, brief, null, null));
        assertThat(s.brick()).contains("[task] " + "T".repeat(500) + "…\n").contains("[brief] " + "B".repeat(1_000) + "…\n");
        assertThat(s.truncations()).isEmpty();
    }

    @Test
    void shouldShortenTheBriefFirstWhenTheFixedPartsDoNotFit() {
        Snapshot s = Sessions.create().policy(dev.baton.engine.policy.Policy.builder().brickBudgetLocalChars(1_000).build())
                .user("T".repeat(500)).say("qwen", "ok")
                .render(new Handoff("h", "qwen", "opus", Target.LOCAL, "B".repeat(1_000), null, null));
        assertThat(s.brick().length()).isLessThanOrEqualTo(1_000);
        assertThat(s.brick()).contains("[task] " + "T".repeat(500) + "\n");
        assertThat(s.brick()).containsPattern("\\[brief\\] B*…");
    }
}
