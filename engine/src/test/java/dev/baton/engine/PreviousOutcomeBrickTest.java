package dev.baton.engine;

import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.markers.Markers;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.tokens.Tokenizers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Receipts: the brick line that says how the session's previous escalation ended. */
class PreviousOutcomeBrickTest {
    private static final String LINE = Markers.previousHandoff("claude-opus", 41, "failed — handed back");

    private static Snapshot render(SessionState state, Handoff h, Policy policy, String previous) {
        return ContextEngine.render("acme", "s1", state, new ReadyHandoff(h, 1_000L, null), policy, Tokenizers.none(),
                LayoutCache.none(), previous);
    }

    @Test
    void shouldShowTheLineAfterTheSessionLineAndNothingWithoutIt() {
        Sessions ses = Sessions.create().user("Fix the login bug").say("qwen", "plan");
        Handoff h = new Handoff("h", "qwen", "opus", Target.LOCAL, "take it", null, null);
        Snapshot with = render(ses.state(), h, ses.policy, LINE);
        Snapshot without = render(ses.state(), h, ses.policy, null);
        assertThat(LINE).isEqualTo("[previous hand-off: escalated to claude-opus at seq 41: failed — handed back]");
        assertThat(with.brick().lines().toList().subList(0, 2))
                .containsExactly("[session s1 of tenant acme: 2 turns; agents: qwen]", LINE);
        assertThat(without).isEqualTo(ses.render(h));
        assertThat(with.brick().replace(LINE + "\n", "")).isEqualTo(without.brick());
        assertThat(with.messages()).isEqualTo(without.messages());
    }

    @Test
    void shouldCountTheLineAgainstTheBrickBudget() {
        Policy small = Policy.defaults().toBuilder().brickBudgetLocalChars(1_000).build();
        Sessions ses = Sessions.create().policy(small).user("t".repeat(2_000));
        for (int i = 0; i < 20; i++) ses.say("qwen", "update " + i + " " + "u".repeat(100));
        Snapshot s = render(ses.state(), new Handoff("h", "qwen", "opus", Target.LOCAL, "b".repeat(2_000), null,
                null), small, LINE);
        assertThat(s.brick()).contains(LINE);
        assertThat(s.brick().length()).isLessThanOrEqualTo(1_000);
    }
}
