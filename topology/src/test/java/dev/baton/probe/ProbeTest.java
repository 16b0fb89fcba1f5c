package dev.baton.probe;

import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.*;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.*;
import org.junit.jupiter.api.Test;
import java.util.List;

class ProbeTest {
    @Test
    void probe() {
        for (int kind = 0; kind < 3; kind++) {
        SessionState s = SessionState.empty();
        Policy p = Policy.defaults();
        String a = "a".repeat(64), b = "b".repeat(64);
        s.offerTurn(Turn.of(0, "user", Role.USER, "task"), p, 0);
        int n = Integer.getInteger("probe.n", 20_000);
        for (int i = 1; i < n; i++) {
            Turn t = switch (kind) {
                case 0 -> Turn.of(i, i % 2 == 0 ? a : b, Role.ASSISTANT, "x");
                case 1 -> Turn.of(i, "u", Role.USER, "\u0001");
                default -> new Turn(i, i % 2 == 0 ? a : b, Role.ASSISTANT, "", List.of(new ToolStep("c" + "x".repeat(120) + i, "t", "{}", "", StepStatus.OK)), List.of(), null, null, null);
            };
            s.offerTurn(t, p, 0);
        }
        Handoff h = new Handoff("h1", null, "z".repeat(64), Target.LOCAL, null, null, null);
        long t0 = System.nanoTime(); System.out.println("PROBE applied " + n);
        Snapshot snap = ContextEngine.render("t", "s", s, new ReadyHandoff(h, 0, null), p);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        byte[] json = SnapshotEncoder.json().encode("x", snap);
        byte[] state = SessionStateCodec.encode(s);
        System.out.println("PROBE kind=" + kind + " messages=" + snap.messages().size() + " json=" + json.length + " state=" + state.length + " renderMs=" + ms + " chars=" + snap.stats().messageChars() + " truncs=" + snap.truncations().size());
        }
    }
}
