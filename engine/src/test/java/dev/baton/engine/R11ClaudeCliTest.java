package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Parity;
import dev.baton.engine.snapshot.Snapshot;
import org.junit.jupiter.api.Test;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * R11 — "claude-cli escalation keeps ADR 0029's bounded bricks (its double-injection constraint is real); it
 * inherits C's honest markers and D's framing through the shared builders" (ADR 0093, Consequences).
 */
class R11ClaudeCliTest {
    @Test
    void shouldSendNoTranscriptButTheBoundedBrickWithMarkersAndFraming() {
        Sessions s = Sessions.create().user("task");
        for (int i = 0; i < 40; i++) s.act("qwen", "t" + i, ok("c" + i, "cat", "{}", "x".repeat(2_000)));
        Snapshot cli = s.render(new Handoff("h", "qwen", "claude", Target.CLAUDE_CLI, null, null, null));
        assertThat(cli.messages()).isEmpty();
        assertThat(cli.stats().messageChars()).isZero();
        assertThat(cli.brick().length()).isLessThanOrEqualTo(12_000).isGreaterThan(3_000);
        assertThat(cli.brick()).contains("… (truncated — full result in the session history)").contains("(earlier activity omitted");
        assertThat(cli.framing().systemPrompt()).contains("owner");
        assertThat(cli.parity()).isEqualTo(new Parity("claude", 0, 0));
        assertThat(cli.retention().expandedSeqs()).hasSize(2);
    }

    @Test
    void shouldRenderAHandoffOnASessionWithoutTurnsForBothTargets() {
        Sessions empty = Sessions.create();
        for (Target target : Target.values()) {
            Snapshot s = empty.render(new Handoff("h", null, "opus", target, null, null, null));
            assertThat(s.asOfSeq()).isEqualTo(-1);
            assertThat(s.turnCount()).isZero();
            assertThat(s.messages()).isEmpty();
            assertThat(s.brick()).isEqualTo("[session s1 of tenant acme: 0 turns]");
            assertThat(s.truncations()).isEmpty();
            assertThat(s.framing().kind()).isEqualTo(dev.baton.engine.snapshot.FramingKind.OWNER_FROM_START);
        }
    }
}
