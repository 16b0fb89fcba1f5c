package dev.baton.engine.state;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/contract.md, "Turns" and "Hand-offs": ordering, duplicates, gaps, late turns, waiting hand-offs and their bounds. */
class SessionStateTest {
    private final Policy p = Policy.defaults();

    private static Turn t(long seq) {
        return Turn.of(seq, "qwen", seq == 0 ? Role.USER : Role.ASSISTANT, "turn " + seq);
    }

    private static Handoff h(String id, Long asOf) {
        return new Handoff(id, null, "opus", Target.LOCAL, null, asOf, null);
    }

    @Test
    void shouldApplyInOrderAndCountDuplicates() {
        SessionState s = SessionState.empty();
        assertThat(s.offerTurn(t(0), p, 0).kind()).isEqualTo(TurnOutcome.Kind.APPLIED);
        assertThat(s.offerTurn(t(1), p, 0).kind()).isEqualTo(TurnOutcome.Kind.APPLIED);
        assertThat(s.offerTurn(t(1), p, 0).kind()).isEqualTo(TurnOutcome.Kind.DUPLICATE);
        assertThat(s.turnCount()).isEqualTo(2);
        assertThat(s.duplicateTurns()).isEqualTo(1);
        assertThat(s.lastAppliedSeq()).isEqualTo(1);
    }

    @Test
    void shouldHoldAfterAGapAndApplyWhenItFills() {
        SessionState s = SessionState.empty();
        s.offerTurn(t(0), p, 0);
        assertThat(s.offerTurn(t(2), p, 0).kind()).isEqualTo(TurnOutcome.Kind.HELD);
        assertThat(s.offerTurn(t(2), p, 0).kind()).as("a held seq repeated").isEqualTo(TurnOutcome.Kind.DUPLICATE);
        TurnOutcome filled = s.offerTurn(t(1), p, 0);
        assertThat(filled.applied()).isEqualTo(2);
        assertThat(s.lastAppliedSeq()).isEqualTo(2);
        assertThat(s.missingRanges()).isEmpty();
    }

    @Test
    void shouldRecordTheRangeMissingAfterTheWaitAndDeadLetterLateTurns() {
        SessionState s = SessionState.empty();
        s.offerTurn(t(0), p, 0);
        s.offerTurn(t(3), p, 1_000);
        assertThat(s.onWallClock(1_000 + p.gapWaitMillis() - 1, p)).isEmpty();
        assertThat(s.heldCount()).isEqualTo(1);
        s.onWallClock(1_000 + p.gapWaitMillis(), p);
        assertThat(s.missingRanges()).containsExactly(MissingRange.of(1, 2));
        assertThat(s.lastAppliedSeq()).isEqualTo(3);
        assertThat(s.offerTurn(t(2), p, 0).kind()).isEqualTo(TurnOutcome.Kind.LATE_TURN);
        assertThat(s.offerTurn(t(3), p, 0).kind()).isEqualTo(TurnOutcome.Kind.DUPLICATE);
    }

    @Test
    void shouldSettleWhenHeldTurnsExceedTheirBound() {
        Policy small = Policy.builder().maxHeldTurns(3).build();
        SessionState s = SessionState.empty();
        s.offerTurn(t(0), small, 0);
        for (long seq = 5; seq < 8; seq++) assertThat(s.offerTurn(t(seq), small, 0).kind()).isEqualTo(TurnOutcome.Kind.HELD);
        TurnOutcome o = s.offerTurn(t(8), small, 0);
        assertThat(o.kind()).isEqualTo(TurnOutcome.Kind.APPLIED);
        assertThat(o.applied()).isEqualTo(4);
        assertThat(s.missingRanges()).containsExactly(MissingRange.of(1, 4));
    }

    @Test
    void shouldParkAHandoffUntilItsAsOfSeqIsApplied() {
        SessionState s = SessionState.empty();
        s.offerTurn(t(0), p, 0);
        HandoffOutcome parked = s.offerHandoff(h("h1", 2L), 5, p, 0);
        assertThat(parked.kind()).isEqualTo(HandoffOutcome.Kind.PARKED);
        assertThat(parked.ready()).isEmpty();
        assertThat(s.offerTurn(t(1), p, 0).released()).isEmpty();
        TurnOutcome o = s.offerTurn(t(2), p, 0);
        assertThat(o.released()).containsExactly(new ReadyHandoff(h("h1", 2L), 5, null));
        assertThat(s.waitingHandoffs()).isZero();
    }

    @Test
    void shouldReleaseAWaitingHandoffAfterTheWaitWithThePendingRangeMissing() {
        SessionState s = SessionState.empty();
        s.offerTurn(t(0), p, 0);
        s.offerTurn(t(2), p, 10);
        s.offerHandoff(h("h1", 4L), 5, p, 10);
        var released = s.onWallClock(10 + p.handoffWaitMillis(), p);
        // Arrived turns are applied first (seq 1 recorded missing); 3–4 never came.
        assertThat(released).containsExactly(new ReadyHandoff(h("h1", 4L), 5, MissingRange.of(3, 4)));
        assertThat(s.missingRanges()).containsExactly(MissingRange.of(1, 1));
        assertThat(s.lastAppliedSeq()).isEqualTo(2);
    }

    @Test
    void shouldEmitTheOldestWaitingHandoffAtOncePastTheBound() {
        Policy small = Policy.builder().maxWaitingHandoffs(2).build();
        SessionState s = SessionState.empty();
        s.offerTurn(t(0), small, 0);
        s.offerHandoff(h("a", 9L), 1, small, 0);
        s.offerHandoff(h("b", 9L), 2, small, 0);
        HandoffOutcome third = s.offerHandoff(h("c", 9L), 3, small, 0);
        assertThat(third.kind()).isEqualTo(HandoffOutcome.Kind.PARKED);
        assertThat(third.ready()).extracting(r -> r.handoff().handoffId()).containsExactly("a");
        assertThat(third.ready().get(0).pendingMissing()).isEqualTo(MissingRange.of(1, 9));
    }

    @Test
    void shouldIgnoreARepeatedHandoffIdUntilItIsForgotten() {
        Policy small = Policy.builder().rememberedHandoffIds(2).build();
        SessionState s = SessionState.empty();
        assertThat(s.offerHandoff(h("a", null), 0, small, 0).kind()).isEqualTo(HandoffOutcome.Kind.READY);
        assertThat(s.offerHandoff(h("a", null), 0, small, 0).kind()).isEqualTo(HandoffOutcome.Kind.DUPLICATE);
        s.offerHandoff(h("b", null), 0, small, 0);
        s.offerHandoff(h("c", null), 0, small, 0);
        assertThat(s.offerHandoff(h("a", null), 0, small, 0).kind()).as("forgotten past the bound").isEqualTo(HandoffOutcome.Kind.READY);
        assertThat(s.duplicateHandoffs()).isEqualTo(1);
    }

    @Test
    void shouldSettleEverythingAtTheEndOfABackfill() {
        SessionState s = SessionState.empty();
        s.offerTurn(t(0), p, 0);
        s.offerTurn(t(3), p, 0);
        s.offerHandoff(h("h", 5L), 1, p, 0);
        var released = s.settleAll(p);
        assertThat(released).containsExactly(new ReadyHandoff(h("h", 5L), 1, MissingRange.of(4, 5)));
        assertThat(s.missingRanges()).containsExactly(MissingRange.of(1, 2));
    }

    @Test
    void shouldExpireAfterCloseGraceOrIdleTtl() {
        SessionState s = SessionState.empty();
        s.touch(100);
        assertThat(s.expired(100 + p.idleTtlMillis() - 1, p)).isFalse();
        assertThat(s.expired(100 + p.idleTtlMillis(), p)).isTrue();
        s.close(200);
        assertThat(s.expired(200 + p.closedGraceMillis(), p)).isTrue();
        assertThat(s.nextDueMillis(p)).isEqualTo(200 + p.closedGraceMillis());
    }

    @Test
    void shouldRoundTripThroughTheCodec() {
        SessionState s = SessionState.empty();
        s.offerTurn(t(0), p, 0);
        s.offerTurn(t(2), p, 7);
        s.offerHandoff(h("x", 3L), 1, p, 7);
        SessionState back = StateStorage.InMemory.roundTrip(s);
        assertThat(StateStorage.InMemory.of(back).dump()).isEqualTo(StateStorage.InMemory.of(s).dump());
        assertThat(back.heldCount()).isEqualTo(1);
        assertThat(back.waitingHandoffs()).isEqualTo(1);
        assertThat(back.offerTurn(t(1), p, 0).released()).hasSize(0);
        assertThat(back.offerTurn(t(3), p, 0).released()).hasSize(1);
    }
}
