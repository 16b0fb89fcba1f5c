package dev.baton.engine;

import dev.baton.engine.markers.Markers;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** R8 — every truncation, omission, manifest, cleared result and missing range is a visible, listed marker. */
class R8HonestMarkersTest {
    @Test
    void shouldReadNaturally() {
        assertThat(Markers.turns(1)).isEqualTo("1 turn");
        assertThat(Markers.turns(2)).isEqualTo("2 turns");
        assertThat(Markers.brickActivityOmitted(1)).isEqualTo("(earlier activity omitted — 1 turn)");
        assertThat(Markers.middleDropped(1, 4, 4)).isEqualTo("(earlier conversation omitted — 1 turn, seq 4; full history in the session log)");
        assertThat(Markers.middleDropped(2, 4, 5)).isEqualTo("(earlier conversation omitted — 2 turns, seq 4–5; full history in the session log)");
        assertThat(Markers.middleSummarized(1, 7, 7)).startsWith("(earlier conversation summarized — 1 turn, seq 7, one line");
        assertThat(Markers.turnsMissing(1, 3, 3)).isEqualTo("(1 turn missing — seq 3 was never received; the session log may have them)");
    }

    @Test
    void shouldShowAndListAMissingRangeInTranscriptAndBrick() {
        Policy p = Policy.defaults();
        SessionState st = SessionState.empty();
        st.offerTurn(Turn.of(0, "u", Role.USER, "task"), p, 0);
        st.offerTurn(Turn.of(1, "qwen", Role.ASSISTANT, "plan"), p, 0);
        st.offerTurn(Turn.of(4, "qwen", Role.ASSISTANT, "after the gap"), p, 0);
        st.onWallClock(p.gapWaitMillis(), p);
        Snapshot s = ContextEngine.render("acme", "s1", st,
                new ReadyHandoff(new Handoff("h", null, "opus", Target.LOCAL, null, null, null), 0, null), p);
        String marker = "(2 turns missing — seq 2–3 were never received; the session log may have them)";
        assertThat(s.messages()).containsSubsequence(Message.assistant("qwen", "plan"), Message.system(marker),
                Message.assistant("qwen", "after the gap"));
        assertThat(s.brick()).contains(marker);
        assertThat(s.truncations()).containsExactly(new Truncation(TruncationKind.TURNS_MISSING, 2L, 3L, 2, marker));
    }

    @Test
    void shouldKeepTheNewest16MissingRangesPlusOneAggregate() {
        Policy p = Policy.defaults();
        SessionState st = SessionState.empty();
        st.offerTurn(Turn.of(0, "u", Role.USER, "task"), p, 0);
        for (int i = 1; i <= 20; i++) {
            st.offerTurn(Turn.of(i * 2L, "qwen", Role.ASSISTANT, "t" + i), p, 0);
            st.onWallClock(Long.MAX_VALUE / 2, p);
        }
        Snapshot s = ContextEngine.render("acme", "s1", st,
                new ReadyHandoff(new Handoff("h", null, "opus", Target.CLAUDE_CLI, null, null, null), 0, null), p);
        assertThat(s.truncations()).filteredOn(t -> t.kind() == TruncationKind.TURNS_MISSING).hasSize(17);
        assertThat(s.truncations().get(0).marker()).isEqualTo(
                "(4 turns missing in older ranges between seq 1 and 7; the session log may have them)");
        assertThat(st.isRecordedMissing(5)).isTrue();
        assertThat(st.isRecordedMissing(4)).as("applied seq inside the aggregated span").isTrue();
    }
}
