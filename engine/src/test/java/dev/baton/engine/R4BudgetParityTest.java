package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R4 — "the escalation message budget no longer subtracts orientation — same formula as the primary path"
 * (ADR 0093, B).
 */
class R4BudgetParityTest {
    private static Sessions longSession() {
        Sessions s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(20_000).build()).user("task");
        for (int i = 0; i < 60; i++) s.say(i % 2 == 0 ? "qwen" : "user2", ("turn " + i + " ").repeat(80));
        return s;
    }

    @Test
    void shouldGiveEveryReceiverTheSameTranscriptBudgetWithoutSubtractingBrickOrFraming() {
        Sessions s = longSession();
        Snapshot toPrimary = s.render(new Handoff("a", null, "qwen", Target.LOCAL, null, null, null));
        Snapshot toOther = s.render(new Handoff("b", "qwen", "opus", Target.LOCAL, "a long brief ".repeat(50), null, null));
        assertThat(toOther.stats().messageChars()).isEqualTo(toPrimary.stats().messageChars());
        assertThat(toOther.stats().messageChars()).isGreaterThan(20_000 - 2_000).isLessThanOrEqualTo(20_000);
    }

    @Test
    void shouldLetAHandoffLowerButNeverRaiseTheBudget() {
        Sessions s = longSession();
        Snapshot lowered = s.render(new Handoff("a", null, "opus", Target.LOCAL, null, null, 8_000));
        Snapshot raised = s.render(new Handoff("b", null, "opus", Target.LOCAL, null, null, 1_000_000));
        assertThat(lowered.stats().messageChars()).isLessThanOrEqualTo(8_000);
        assertThat(raised.stats().messageChars()).isLessThanOrEqualTo(20_000);
    }

    @Test
    void shouldRaiseBudgetsBelow2000To2000() {
        Snapshot s = longSession().render(new Handoff("a", null, "opus", Target.LOCAL, null, null, 10));
        assertThat(s.stats().messageChars()).isLessThanOrEqualTo(2_000).isGreaterThan(1_000);
    }
}
