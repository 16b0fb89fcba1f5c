package dev.baton.engine.layout;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.Sessions;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.tokens.Tokenizers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The render cache stays about the size of the state it is held beside, however many turns left the state. */
class LayoutCacheTest {

    @Test
    void shouldForgetTheTurnsThatLeftTheState() {
        Policy small = Policy.builder().transcriptBudgetChars(2_000).minTranscriptBudgetChars(2_000)
                .digestBudgetChars(200).brickBudgetLocalChars(1_000).brickBudgetCliChars(1_000).build();
        Sessions s = Sessions.create().policy(small).user("the task");
        for (int i = 0; i < 400; i++) s.say(i % 2 == 0 ? "qwen" : "claude", "step " + i + " " + "x".repeat(200));
        SessionState state = SessionState.empty();
        LayoutCache layouts = new LayoutCache();
        for (int i = 0; i < s.turns.size(); i++) {
            Turn t = s.turns.get(i);
            state.offerTurn(t, small, 0L);
            if (i % 10 == 9 || i == s.turns.size() - 1) {
                ContextEngine.render("acme", "s1", state, new ReadyHandoff(Sessions.handoff("claude"), 1L, null), small,
                        Tokenizers.none(), layouts);
                // pruned by the render that finds more than twice the state's turns (+16); a render adds at most the
                // turns that arrived since the last one (10)
                assertThat(layouts.size()).as("after turn " + i).isLessThanOrEqualTo(2 * (state.bodySize() + 2) + 16 + 10);
            }
        }
        assertThat(state.compacted().count).as("turns left the state").isGreaterThan(300);
        assertThat(layouts.layoutOf(state.body().get(state.bodySize() - 1))).as("the newest turn is kept").isNotNull();
    }
}
