package dev.baton.processor;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SessionTimerIndexTest {
    private KeyValueStore<String, Long> store;
    private SessionTimerIndex index;

    @BeforeEach
    void setUp() {
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("timers"), Serdes.String(), Serdes.Long())
                .withLoggingDisabled().build();
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        store.init(context.getStateStoreContext(), store);
        index = new SessionTimerIndex(store);
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void shouldReturnOnlyWhatIsDueEarliestFirstAndRemoveIt() {
        index.move("t/late", SessionTimerIndex.NEVER, 9_000);
        index.move("t/b", SessionTimerIndex.NEVER, 1_000);
        index.move("t/a", SessionTimerIndex.NEVER, 999);
        index.move("t/now", SessionTimerIndex.NEVER, 5_000);

        assertThat(index.takeDue(5_000, 100)).containsExactly("t/a", "t/b", "t/now");
        assertThat(index.takeDue(5_000, 100)).isEmpty();
        assertThat(keys()).containsExactly(SessionTimerIndex.key(9_000, "t/late"));
    }

    @Test
    void shouldSortByTimeAcrossDigitCounts() {
        index.move("t/x", SessionTimerIndex.NEVER, 100_000);
        index.move("t/y", SessionTimerIndex.NEVER, 99);
        assertThat(index.takeDue(Long.MAX_VALUE - 1, 100)).containsExactly("t/y", "t/x");
    }

    @Test
    void shouldVisitAtMostTheLimitAndLeaveTheRestDue() {
        for (int i = 0; i < 5; i++) index.move("t/s" + i, SessionTimerIndex.NEVER, 100 + i);
        assertThat(index.takeDue(1_000, 2)).containsExactly("t/s0", "t/s1");
        assertThat(index.takeDue(1_000, 10)).containsExactly("t/s2", "t/s3", "t/s4");
    }

    @Test
    void shouldMoveAnEntryInsteadOfAddingOne() {
        index.move("t/s", SessionTimerIndex.NEVER, 1_000);
        index.move("t/s", 1_000, 2_000);
        index.move("t/s", 2_000, 2_000);
        assertThat(keys()).containsExactly(SessionTimerIndex.key(2_000, "t/s"));
        index.move("t/s", 2_000, SessionTimerIndex.NEVER);
        assertThat(keys()).isEmpty();
    }

    @Test
    void shouldRoundIdleDueTimesUpToTheMinute() {
        assertThat(SessionTimerIndex.roundUp(120_000)).isEqualTo(120_000);
        assertThat(SessionTimerIndex.roundUp(120_001)).isEqualTo(180_000);
        assertThat(SessionTimerIndex.roundUp(Long.MAX_VALUE - 5)).isEqualTo(Long.MAX_VALUE);
    }

    private List<String> keys() {
        List<String> keys = new ArrayList<>();
        store.all().forEachRemaining(kv -> keys.add(kv.key));
        return keys;
    }
}
