package dev.baton.engine.properties;

import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R10 determinism: a snapshot is a function of the applied events, the hand-off and the policy. Rendering twice, from
 * a state built again from the same turns, and from a state that went through the state store's codec, gives equal
 * snapshots; rendering does not modify the state, with or without a render cache held beside it (its stored form,
 * serialized before and after, is byte-identical, and so is every turn's change count).
 */
class DeterminismProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL);
    }

    @Property(tries = 100)
    void shouldRenderEqualSnapshotsAgainAndAfterACodecRoundTrip(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        SessionArbitraries.Run s = sc.run();
        Handoff h = sc.handoff();
        SessionState state = s.state();
        byte[] before = StateStorage.InMemory.of(state).dump();
        Snapshot first = s.render(state, h);
        byte[] after = StateStorage.InMemory.of(state).dump();
        assertThat(after).as("rendering does not modify the state").isEqualTo(before);

        assertThat(s.render(state, h)).isEqualTo(first);
        assertThat(s.render(s.state(), h)).as("state built again").isEqualTo(first);
        SessionState decoded = StateStorage.InMemory.roundTrip(state);
        assertThat(s.render(decoded, h)).as("after encode/decode").isEqualTo(first);
        assertThat(StateStorage.InMemory.of(decoded).dump()).as("codec is stable").isEqualTo(before);
    }

    @Property(tries = 100)
    void shouldLeaveTheStateByteIdenticalWhenRenderingWithARenderCache(
            @ForAll("sessions") SessionArbitraries.Scenario sc) {
        SessionArbitraries.Run s = sc.run();
        SessionState state = s.state();
        byte[] before = StateStorage.InMemory.of(state).dump();
        List<Integer> changesBefore = changes(state);
        LayoutCache layouts = new LayoutCache();
        List<Handoff> handoffs = List.of(sc.handoff(), sc.handoff(sc.agents().get(0), Target.LOCAL),
                sc.handoff("newcomer", Target.LOCAL), sc.handoff("newcomer", Target.CLAUDE_CLI));
        for (int round = 0; round < 2; round++) { // cold, then warm
            for (Handoff h : handoffs) {
                Snapshot cached = s.render(state, h, layouts);
                assertThat(StateStorage.InMemory.of(state).dump()).as("rendering does not modify the state")
                        .isEqualTo(before);
                assertThat(cached).as("the render cache is invisible").isEqualTo(s.render(s.state(), h));
            }
        }
        assertThat(changes(state)).isEqualTo(changesBefore);
    }

    private static List<Integer> changes(SessionState state) {
        return state.body().stream().map(t -> t.changes()).toList();
    }
}
