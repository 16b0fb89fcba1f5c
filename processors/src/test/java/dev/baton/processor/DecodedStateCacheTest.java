package dev.baton.processor;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.SessionStateCodec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DecodedStateCacheTest {
    private static byte[] stateWith(int turns) {
        SessionState s = SessionState.empty();
        for (int i = 0; i < turns; i++) s.offerTurn(Turn.of(i, "a", i == 0 ? Role.USER : Role.ASSISTANT, "t" + i), Policy.defaults(), 0);
        return SessionStateCodec.encode(s);
    }

    @Test
    void shouldReuseTheDecodedStateOnlyForTheBytesItWasStoredAs() {
        DecodedStateCache cache = new DecodedStateCache(1 << 20);
        byte[] v1 = stateWith(2);
        SessionState s = cache.take("k", v1);
        assertThat(cache.misses()).isEqualTo(1);
        s.offerTurn(Turn.of(2, "a", Role.ASSISTANT, "t2"), Policy.defaults(), 0);
        byte[] v2 = SessionStateCodec.encode(s);
        cache.keep("k", v2, s);

        assertThat(cache.take("k", v2.clone())).isSameAs(s);
        assertThat(cache.hits()).isEqualTo(1);
        cache.keep("k", v2, s);
        // The store holds other bytes (restored, rolled back): decode them, never reuse the object.
        SessionState restored = cache.take("k", v1);
        assertThat(restored).isNotSameAs(s);
        assertThat(restored.turnCount()).isEqualTo(2);
    }

    @Test
    void shouldNotKeepAStateThatIsBeingMutated() {
        DecodedStateCache cache = new DecodedStateCache(1 << 20);
        byte[] v1 = stateWith(2);
        cache.keep("k", v1, SessionStateCodec.decode(v1));
        SessionState taken = cache.take("k", v1);
        taken.offerTurn(Turn.of(2, "a", Role.ASSISTANT, "half-applied"), Policy.defaults(), 0);
        // the record failed before keep(): the next take decodes the stored bytes again
        assertThat(cache.take("k", v1).turnCount()).isEqualTo(2);
    }

    @Test
    void shouldStayWithinItsByteBound() {
        byte[] v = stateWith(50);
        DecodedStateCache cache = new DecodedStateCache(v.length * 2L + 1);
        for (int i = 0; i < 5; i++) cache.keep("k" + i, v, SessionStateCodec.decode(v));
        cache.take("k0", v);
        cache.take("k4", v);
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
    }
}
