package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import org.junit.jupiter.api.Test;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/** R10 — a snapshot is a function of the applied events, the hand-off and the policy only. */
class R10DeterminismTest {
    @Test
    void shouldRenderEqualSnapshotsFromReplayedAndRestoredState() {
        Sessions s = Sessions.create().user("task");
        for (int i = 0; i < 30; i++) {
            s.act(i % 3 == 0 ? "qwen" : "opus", "t" + i, ok("c" + i, "tool" + (i % 4), "{\"i\":" + i + "}", "r" + i));
        }
        Handoff h = new Handoff("h", "qwen", "opus", Target.LOCAL, "brief", null, 2_500);
        Snapshot first = s.render(h);
        Snapshot replayed = s.render(h);
        SessionState restored = StateStorage.InMemory.roundTrip(s.state());
        assertThat(replayed).isEqualTo(first);
        assertThat(s.render(restored, h)).isEqualTo(first);
        assertThat(StateStorage.InMemory.of(restored).dump()).isEqualTo(StateStorage.InMemory.of(s.state()).dump());
    }
}
