package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import org.junit.jupiter.api.Test;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * R9 — "for the same session each side's rendering carries every text, tool name, argument and result the other
 * shows (superset test)" (ADR 0093, E). The superset itself, trimmed or not, is SupersetProperties'; these examples
 * pin what it does not: the same turns survive for both sides although narration costs the receiver more, and a
 * session without a primary reports zero of zero with the receiver as reference.
 */
class R9SupersetTest {
    private static Sessions mixed() {
        Sessions s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(4_000).build())
                .user("task: make CI green").act("qwen", "plan", ok("c0", "ls", "{}", "src test"));
        for (int i = 1; i < 12; i++) {
            s.act("qwen", "step " + i, ok("c" + i, "run", "{\"n\":" + i + "}", "(out) ".repeat(40 + i)));
            s.legacyCall("qwen", "", call("L" + i, "grep", "{\"q\":\"" + i + "\"}"));
            s.legacyResult("qwen", "L" + i, "[hit " + i + "]");
        }
        return s;
    }

    @Test
    void shouldMeasureSegmentsOnTheNarratedFormSoTheSameTurnsSurvive() {
        Sessions s = mixed();
        Snapshot primary = s.render(new Handoff("p", null, "qwen", Target.LOCAL, null, null, null));
        Snapshot receiver = s.render(new Handoff("r", "qwen", "opus", Target.LOCAL, null, null, null));
        assertThat(receiver.truncations()).isEqualTo(primary.truncations());
        // Narration costs more than native replay: the receiver's transcript is the larger, both within budget.
        assertThat(receiver.stats().messageChars()).isGreaterThan(primary.stats().messageChars()).isLessThanOrEqualTo(4_000);
    }

    @Test
    void shouldReportZeroOfZeroWithTheReceiverAsReferenceWithoutAPrimary() {
        Snapshot s = Sessions.create().user("only a question").render(new Handoff("h", null, "opus", Target.LOCAL, null, null, null));
        assertThat(s.parity()).isEqualTo(new dev.baton.engine.snapshot.Parity("opus", 0, 0));
    }
}
