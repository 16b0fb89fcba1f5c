package dev.baton.processor;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DecodedStateCacheTest {
    private static SessionState stateWith(int turns) {
        SessionState s = SessionState.empty();
        for (int i = 0; i < turns; i++) s.offerTurn(Turn.of(i, "a", i == 0 ? Role.USER : Role.ASSISTANT, "t" + i), Policy.defaults(), 0);
        return s;
    }

    private static byte[] skeleton(SessionState s) {
        return StateStorage.InMemory.of(s).skeleton;
    }

    @Test
    void shouldReuseTheDecodedStateOnlyForTheSkeletonItWasStoredAs() {
        DecodedStateCache cache = new DecodedStateCache(1 << 20);
        SessionState s = stateWith(2);
        byte[] v1 = skeleton(s);
        assertThat(cache.take("k", v1)).isNull();
        assertThat(cache.misses()).isEqualTo(1);
        s.offerTurn(Turn.of(2, "a", Role.ASSISTANT, "t2"), Policy.defaults(), 0);
        byte[] v2 = skeleton(s);
        cache.keep("k", v2, s);

        assertThat(cache.take("k", v2.clone())).isSameAs(s);
        assertThat(cache.hits()).isEqualTo(1);
        cache.keep("k", v2, s);
        // The store holds another skeleton (restored, rolled back): read it again, never reuse the object.
        assertThat(cache.take("k", v1)).isNull();
    }

    @Test
    void shouldNotKeepAStateThatIsBeingMutated() {
        DecodedStateCache cache = new DecodedStateCache(1 << 20);
        SessionState s = stateWith(2);
        byte[] v1 = skeleton(s);
        cache.keep("k", v1, s);
        SessionState taken = cache.take("k", v1);
        taken.offerTurn(Turn.of(2, "a", Role.ASSISTANT, "half-applied"), Policy.defaults(), 0);
        // the record failed before keep(): the next take finds nothing and the caller reads the store again
        assertThat(cache.take("k", v1)).isNull();
    }

    @Test
    void shouldStayWithinItsByteBound() {
        SessionState s = stateWith(50);
        byte[] v = skeleton(s);
        long weight = DecodedStateCache.ENTRY_OVERHEAD_BYTES + "k0".length() + v.length + s.weight();
        DecodedStateCache cache = new DecodedStateCache(weight * 2 + 1);
        for (int i = 0; i < 5; i++) cache.keep("k" + i, v, stateWith(50));
        assertThat(cache.bytes()).isLessThanOrEqualTo(weight * 2 + 1);
        assertThat(cache.take("k0", v)).isNull();
        assertThat(cache.take("k4", v)).isNotNull();
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
    }
}
