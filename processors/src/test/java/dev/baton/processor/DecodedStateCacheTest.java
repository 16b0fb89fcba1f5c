package dev.baton.processor;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

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
        assertThat(take(cache, "k", v1)).isNull();
        assertThat(cache.misses()).isEqualTo(1);
        s.offerTurn(Turn.of(2, "a", Role.ASSISTANT, "t2"), Policy.defaults(), 0);
        byte[] v2 = skeleton(s);
        keep(cache, "k", v2, s, false);

        assertThat(take(cache, "k", v2.clone())).isSameAs(s);
        assertThat(cache.hits()).isEqualTo(1);
        keep(cache, "k", v2, s, false);
        // The store holds another skeleton (restored, rolled back): read it again, never reuse the object.
        assertThat(take(cache, "k", v1)).isNull();
    }

    @Test
    void shouldNotKeepAStateThatIsBeingMutated() {
        DecodedStateCache cache = new DecodedStateCache(1 << 20);
        SessionState s = stateWith(2);
        byte[] v1 = skeleton(s);
        keep(cache, "k", v1, s, false);
        SessionState taken = take(cache, "k", v1);
        taken.offerTurn(Turn.of(2, "a", Role.ASSISTANT, "half-applied"), Policy.defaults(), 0);
        // the record failed before keep(): the next take finds nothing and the caller reads the store again
        assertThat(take(cache, "k", v1)).isNull();
    }

    @Test
    void shouldStayWithinItsByteBound() {
        SessionState s = stateWith(50);
        byte[] v = skeleton(s);
        long weight = DecodedStateCache.ENTRY_OVERHEAD_BYTES + "k0".length() + v.length + s.weight();
        DecodedStateCache cache = new DecodedStateCache(weight * 2 + 1);
        for (int i = 0; i < 5; i++) keep(cache, "k" + i, v, stateWith(50), true);
        assertThat(cache.bytes()).isLessThanOrEqualTo(weight * 2 + 1);
        assertThat(take(cache, "k0", v)).isNull();
        assertThat(take(cache, "k4", v)).isNotNull();
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
    }

    /**
     * A task visiting 250 sessions round-robin whose budget holds 100 of them (the shape of
     * {@code EndToEndHarness --turns 100000 --sessions 1000}): one load and one store per visit, as the repository does.
     * Returns the hit rate over the last {@code measured} rounds.
     */
    private static double cyclicHitRate(int admitEvery, int sessions, int fitting, int rounds, int measured) {
        SessionState s = stateWith(20);
        byte[] v = skeleton(s);
        long weight = DecodedStateCache.ENTRY_OVERHEAD_BYTES + "k000".length() + v.length + s.weight();
        DecodedStateCache cache = new DecodedStateCache(weight * fitting, admitEvery);
        long hitsBefore = 0;
        long missesBefore = 0;
        for (int r = 0; r < rounds; r++) {
            if (r == rounds - measured) {
                hitsBefore = cache.hits();
                missesBefore = cache.misses();
            }
            for (int i = 0; i < sessions; i++) {
                String key = String.format("k%03d", i);
                SessionState taken = take(cache, key, v);
                keep(cache, key, v, taken != null ? taken : stateWith(20), taken != null);
            }
        }
        assertThat(cache.bytes()).isLessThanOrEqualTo(weight * fitting);
        long hits = cache.hits() - hitsBefore;
        return (double) hits / (hits + cache.misses() - missesBefore);
    }

    @Test
    void shouldKeepHittingUnderCyclicAccessThatExceedsTheBudget() {
        // plain LRU (admit every miss) never hits: each new entry evicts the next one to come back
        assertThat(cyclicHitRate(1, 250, 100, 20, 10)).isZero();
        // bimodal insertion keeps about C - (N - C) / 16 of every N visits hitting: 100 - 9.4 of 250, ~36 %
        double rate = cyclicHitRate(DecodedStateCache.ADMIT_EVERY, 250, 100, 20, 10);
        assertThat(rate).isBetween(0.30, 0.40);
    }

    @Test
    void shouldHitEverySessionOnceTheWorkingSetFits() {
        assertThat(cyclicHitRate(DecodedStateCache.ADMIT_EVERY, 80, 100, 5, 4)).isEqualTo(1.0);
    }

    @Test
    void shouldMoveToANewWorkingSetThatFits() {
        SessionState s = stateWith(20);
        byte[] v = skeleton(s);
        long weight = DecodedStateCache.ENTRY_OVERHEAD_BYTES + "old00".length() + v.length + s.weight();
        DecodedStateCache cache = new DecodedStateCache(weight * 100);
        for (int r = 0; r < 3; r++) {
            for (int i = 0; i < 100; i++) {
                String key = String.format("old%02d", i);
                SessionState taken = take(cache, key, v);
                keep(cache, key, v, taken != null ? taken : stateWith(20), taken != null);
            }
        }
        assertThat(cache.size()).isEqualTo(100);
        // the old sessions are never visited again; 50 new ones are, round-robin
        List<Long> hitsPerRound = new ArrayList<>();
        for (int round = 0; round < 100; round++) {
            long before = cache.hits();
            for (int i = 0; i < 50; i++) {
                String key = String.format("new%02d", i);
                SessionState taken = take(cache, key, v);
                keep(cache, key, v, taken != null ? taken : stateWith(20), taken != null);
            }
            hitsPerRound.add(cache.hits() - before);
        }
        // One admission per ADMIT_EVERY misses, each evicting an old session: the misses left shrink by about 1/16
        // per round (50 e^(-r/16) after r rounds), so more than half hit by round 20 and all of them in the end.
        assertThat(hitsPerRound.get(0)).isZero();
        assertThat(hitsPerRound.get(19)).isGreaterThan(25);
        assertThat(hitsPerRound.get(99)).isEqualTo(50);
        assertThat(cache.size()).isEqualTo(100);
    }

    /** The state taken, or null. */
    private static SessionState take(DecodedStateCache cache, String key, byte[] skeleton) {
        DecodedStateCache.Decoded d = cache.take(key, skeleton);
        return d == null ? null : d.state();
    }

    private static void keep(DecodedStateCache cache, String key, byte[] skeleton, SessionState state,
                             boolean wasCached) {
        cache.keep(key, skeleton, new DecodedStateCache.Decoded(state, new LayoutCache()), wasCached);
    }
}
