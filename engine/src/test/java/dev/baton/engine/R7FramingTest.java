package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.FramingKind;
import dev.baton.engine.snapshot.Snapshot;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R7 — "buildSystemPromptOpts takes an ownedFromStart flag (session.PrimaryEverActive == false and no escalation
 * brief) selecting an owner framing ('This conversation is yours from the start — every turn in it is your own
 * work') with no primary attribution" (ADR 0093, addendum); "the reviewer-priming labels ('Escalation brief from
 * primary agent', 'Expect mid-conversation hand-offs') are gone" (D).
 */
class R7FramingTest {
    @Test
    void shouldFrameAPinnedSessionAsTheReceiversOwnFromTheStart() {
        Snapshot s = Sessions.create().user("task").say("opus", "mine").legacyResult("opus", "x", "r")
                .render(new Handoff("h", null, "opus", Target.LOCAL, null, null, null));
        assertThat(s.framing().kind()).isEqualTo(FramingKind.OWNER_FROM_START);
        assertThat(s.framing().systemPrompt()).contains("yours from the start").doesNotContainIgnoringCase("primary")
                .doesNotContainIgnoringCase("handed off");
    }

    @Test
    void shouldUseContinuityWhenAnotherAgentActedOrABriefOrPreviousOwnerExists() {
        Sessions other = Sessions.create().user("task").say("qwen", "theirs");
        assertThat(other.render(new Handoff("h", null, "opus", Target.LOCAL, null, null, null)).framing().kind())
                .isEqualTo(FramingKind.CONTINUITY);
        Sessions own = Sessions.create().user("task").say("opus", "mine");
        assertThat(own.render(new Handoff("h", null, "opus", Target.LOCAL, "brief", null, null)).framing().kind())
                .isEqualTo(FramingKind.CONTINUITY);
        assertThat(own.render(new Handoff("h", "qwen", "opus", Target.LOCAL, null, null, null)).framing().kind())
                .isEqualTo(FramingKind.CONTINUITY);
        assertThat(own.render(new Handoff("h", null, "opus", Target.LOCAL, "", null, null)).framing().kind())
                .as("an empty brief is no brief").isEqualTo(FramingKind.OWNER_FROM_START);
    }

    @Test
    void shouldCountToolTurnsOfAnotherAgentAsToolActivity() {
        Sessions s = Sessions.create().user("task").say("opus", "mine").legacyResult("qwen", "x", "r");
        assertThat(s.render(new Handoff("h", null, "opus", Target.LOCAL, null, null, null)).framing().kind())
                .isEqualTo(FramingKind.CONTINUITY);
    }

    @Test
    void shouldTellTheReceiverToContinueAsOwnerAndNeverPrimeAReviewer() {
        Snapshot s = Sessions.create().user("task").say("qwen", "theirs")
                .render(new Handoff("h", "qwen", "opus", Target.CLAUDE_CLI, "b", null, null));
        assertThat(s.framing().systemPrompt()).contains("complete conversation").contains("including tool activity")
                .contains("owner").contains("without recapping")
                .doesNotContain("Escalation brief from primary agent").doesNotContain("Expect mid-conversation hand-offs");
    }
}
