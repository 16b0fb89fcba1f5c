package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.TruncationKind;
import org.junit.jupiter.api.Test;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * R3 — "Retention is planned by the shared planTrails — the same newest-2-expansion / 160KB-newest-first /
 * manifest-for-old policy ReplayTrails gives an agent its own trails: retention parity, symmetric cost" (ADR 0093, A).
 */
class R3RetentionTest {
    private static final String KB40 = "x".repeat(40 * 1024);

    private static Sessions tenTrailTurns() {
        Sessions s = Sessions.create().user("task").say("qwen", "plan");
        for (int i = 0; i < 10; i++) s.act("qwen", "step " + i, ok("c" + i, "read_file", "{\"i\":" + i + "}", KB40));
        return s;
    }

    @Test
    void shouldExpandTheTwoNewestAndInlineWhileCumulativeBytesFit() {
        Snapshot s = tenTrailTurns().render(new Handoff("h", null, "opus", Target.LOCAL, null, null, null));
        // seqs 2..11 are trail-bearing; 11, 10 expanded; 40 KiB + 7 bytes each: 3 fit in 160 KiB (9, 8, 7), 4 do not.
        assertThat(s.retention().expandedSeqs()).containsExactly(11L, 10L);
        assertThat(s.retention().inlinedSeqs()).containsExactly(9L, 8L, 7L);
        assertThat(s.retention().manifestSeqs()).containsExactly(6L, 5L, 4L, 3L, 2L);
        assertThat(s.retention().manifestUnlisted()).isZero();
    }

    @Test
    void shouldReplaceOlderTrailsByOneManifestRightAfterTheHeadAndKeepTheirTexts() {
        Snapshot s = tenTrailTurns().render(new Handoff("h", null, "opus", Target.LOCAL, null, null, null));
        Message manifest = s.messages().get(2);
        assertThat(s.messages().get(0)).isEqualTo(Message.user("task"));
        assertThat(s.messages().get(1)).isEqualTo(Message.assistant("qwen", "plan"));
        assertThat(manifest.role()).isEqualTo("system");
        assertThat(manifest.content()).contains("full detail in the session history")
                .contains("[seq 6 qwen: read_file]").contains("[seq 2 qwen: read_file]")
                .endsWith("(0 older trail-bearing turns not listed)");
        assertThat(manifest.content().indexOf("seq 6")).isLessThan(manifest.content().indexOf("seq 2"));
        assertThat(s.messages()).extracting(Message::content).contains("step 2", "step 6");
        assertThat(s.messages()).noneMatch(m -> m.content().contains("{\"i\":4}"));
        assertThat(s.truncations()).anyMatch(t -> t.kind() == TruncationKind.TRAIL_MANIFEST && t.count() == 5);
    }

    @Test
    void shouldPlanTheSameWhoeverReceives() {
        Sessions s = tenTrailTurns();
        Snapshot own = s.render(new Handoff("h", null, "qwen", Target.LOCAL, null, null, null));
        Snapshot other = s.render(new Handoff("h", null, "opus", Target.LOCAL, null, null, null));
        assertThat(own.retention()).isEqualTo(other.retention());
    }

    @Test
    void shouldCapTheManifestAndSayHowManyItDoesNotList() {
        Sessions s = Sessions.create().policy(dev.baton.engine.policy.Policy.builder().manifestCapChars(400).build())
                .user("task").say("qwen", "plan");
        for (int i = 0; i < 40; i++) s.act("qwen", "", ok("c" + i, "tool_number_" + i, "{}", KB40));
        Snapshot snap = s.render(new Handoff("h", null, "opus", Target.LOCAL, null, null, null));
        String manifest = snap.messages().get(2).content();
        assertThat(manifest.length()).isLessThanOrEqualTo(400);
        assertThat(snap.retention().manifestUnlisted()).isPositive();
        assertThat(manifest).endsWith("(" + snap.retention().manifestUnlisted() + " older trail-bearing turns not listed)");
        assertThat(snap.retention().manifestSeqs().size() + snap.retention().manifestUnlisted()).isEqualTo(35);
    }
}
