package dev.baton.engine.state;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StoredTurnWeightTest {
    @Test
    void shouldWeighStringsAtTheirJavaHeapSize() {
        assertThat(StoredTurn.heapBytes(null)).isZero();
        assertThat(StoredTurn.heapBytes("")).isEqualTo(40);
        // Latin-1 strings keep one byte per char (é included), rounded up to 8
        assertThat(StoredTurn.heapBytes("abcdefghi")).isEqualTo(40 + 16);
        assertThat(StoredTurn.heapBytes("café")).isEqualTo(40 + 8);
        // one char beyond Latin-1 makes the whole string two bytes per char
        assertThat(StoredTurn.heapBytes("abcdefgh→")).isEqualTo(40 + 24);
    }

    @Test
    void shouldWeighAStateByWhatItKeepsOnTheHeap() {
        SessionState ascii = SessionState.empty();
        SessionState wide = SessionState.empty();
        ascii.offerTurn(Turn.of(0, "user", Role.USER, "x".repeat(1_000)), Policy.defaults(), 0);
        wide.offerTurn(Turn.of(0, "user", Role.USER, "x".repeat(999) + "数"), Policy.defaults(), 0);

        assertThat(SessionState.empty().weight()).isEqualTo(SessionState.STATE_OVERHEAD_BYTES);
        assertThat(ascii.weight()).isGreaterThan(SessionState.STATE_OVERHEAD_BYTES + 1_000L);
        // the same length with one CJK char: twice the bytes on the heap (UTF-16), not 2 more (UTF-8)
        assertThat(wide.weight() - ascii.weight()).isEqualTo(1_000L);
    }

    @Test
    void shouldChargeNoRenderCacheToTheStatesWeight() {
        // Two states that differ only by 1,000 chars of one step's arguments: they hold 1,000 bytes more on the heap.
        // A narration of the step built by a render cache beside the state is not the state's (docs/capacity.md).
        SessionState small = withArguments("{\"q\":\"" + "x".repeat(8) + "\"}");
        SessionState large = withArguments("{\"q\":\"" + "x".repeat(1_008) + "\"}");
        assertThat(large.weight() - small.weight()).isEqualTo(1_000L);
    }

    private static SessionState withArguments(String arguments) {
        SessionState s = SessionState.empty();
        s.offerTurn(new Turn(0, "qwen", Role.ASSISTANT, "looked", java.util.List.of(new dev.baton.engine.model.ToolStep(
                "c1", "grep", arguments, "found", dev.baton.engine.model.StepStatus.OK)), java.util.List.of(), null, null,
                null), Policy.defaults(), 0);
        return s;
    }
}
