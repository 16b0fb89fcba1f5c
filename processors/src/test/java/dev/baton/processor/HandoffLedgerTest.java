package dev.baton.processor;

import dev.baton.engine.model.SessionKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HandoffLedgerTest {
    private static final SessionKey S = new SessionKey("acme", "s1");

    private static SnapshotEmitted snapshot(String id) {
        return new SnapshotEmitted(S, id, "ab".repeat(32), id.equals("h0") ? null : "planner", "coder", 7, 1234, 900,
                300, 225, 75, id.equals("h1") ? "o200k_base" : null);
    }

    private static Receipt receipt(String id, Receipt.Result outcome) {
        return new Receipt(S, id, "cd".repeat(32), outcome == null ? null : "claude-opus", 100L, 42L, outcome,
                outcome == null ? null : 9L, null, "acme/s1".getBytes(), new byte[]{1, 2, 3});
    }

    @Test
    void shouldReadBackWhatItWrote() {
        HandoffLedger l = new HandoffLedger();
        l.lastActivityMillis = 99;
        l.previousOutcome = "[previous hand-off: escalated to x at seq 1: resolved]";
        l.add(new HandoffLedger.Entry(snapshot("h0"), 10));
        HandoffLedger.Entry e = new HandoffLedger.Entry(snapshot("h1"), 20);
        e.overdue = true;
        e.acknowledgedAtMillis = 30;
        e.receiverModel = "claude-opus";
        e.budgetTokens = 5L;
        e.startedAtMillis = 25;
        e.outcome = Receipt.Result.HANDED_BACK;
        e.tokensSpent = 77L;
        l.add(e);
        l.hold(new HandoffLedger.Held(receipt("h9", null), 40));
        l.hold(new HandoffLedger.Held(receipt("h8", Receipt.Result.RESOLVED), 41));

        HandoffLedger back = HandoffLedger.decode(l.encode());

        assertThat(back.encode()).isEqualTo(l.encode());
        assertThat(back.previousOutcome()).isEqualTo(l.previousOutcome);
        assertThat(back.find("h0").snapshot()).isEqualTo(snapshot("h0"));
        HandoffLedger.Entry b = back.find("h1");
        assertThat(b.snapshot()).isEqualTo(snapshot("h1"));
        assertThat(b.overdue).isTrue();
        assertThat(b.outcome).isEqualTo(Receipt.Result.HANDED_BACK);
        assertThat(b.tokensSpent).isEqualTo(77L);
        assertThat(back.held).hasSize(2);
        Receipt r = back.held.get(1).receipt();
        assertThat(r.outcome()).isEqualTo(Receipt.Result.RESOLVED);
        assertThat(r.rawValue()).containsExactly(1, 2, 3);
        assertThat(back.held.get(0).arrivedAtMillis()).isEqualTo(40);
    }

    @Test
    void shouldKeepTheNewestSnapshotsAndHeldReceiptsWithinItsBounds() {
        HandoffLedger l = new HandoffLedger();
        HandoffLedger.Entry first = new HandoffLedger.Entry(snapshot("h0"), 0);
        l.add(first);
        HandoffLedger.Entry pushed = null;
        for (int i = 1; i <= HandoffLedger.MAX_SNAPSHOTS; i++) {
            pushed = l.add(new HandoffLedger.Entry(snapshot("x" + i), i));
        }
        assertThat(pushed).isSameAs(first);
        assertThat(l.entries).hasSize(HandoffLedger.MAX_SNAPSHOTS);
        assertThat(l.find("h0")).isNull();

        HandoffLedger.Held oldest = new HandoffLedger.Held(receipt("y0", null), 0);
        assertThat(l.hold(oldest)).isNull();
        HandoffLedger.Held out = null;
        for (int i = 1; i <= HandoffLedger.MAX_HELD; i++) out = l.hold(new HandoffLedger.Held(receipt("y" + i, null), i));
        assertThat(out).isSameAs(oldest);
        assertThat(l.held).hasSize(HandoffLedger.MAX_HELD);
        assertThat(l.takeHeld("y3")).hasSize(1);
        assertThat(l.held).hasSize(HandoffLedger.MAX_HELD - 1);
    }
}
