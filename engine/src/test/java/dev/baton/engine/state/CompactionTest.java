package dev.baton.engine.state;

import dev.baton.engine.Sessions;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Compaction keeps state bounded and is invisible: the compacted state renders like the full history. */
class CompactionTest {
    private static Sessions session(long seed, int turns, Policy policy) {
        Random r = new Random(seed);
        Sessions s = Sessions.create().policy(policy).user("the task " + seed);
        String[] agents = {"qwen", "opus", "coder"};
        for (int i = 0; i < turns; i++) {
            String a = agents[r.nextInt(agents.length)];
            switch (r.nextInt(7)) {
                case 0 -> s.say(a, "text " + i + " " + "w".repeat(r.nextInt(400)));
                case 1 -> s.act(a, "", ok("c" + i, "read", "{\"i\":" + i + "}", "r".repeat(r.nextInt(3000))));
                case 2 -> s.act(a, r.nextBoolean() ? "" : "did " + i, ok("c" + i, "grep", "{}", "g" + i),
                        error("e" + i, "run", "{}", "boom " + i));
                case 3 -> {
                    s.legacyCall(a, r.nextBoolean() ? "" : "calling " + i, call("L" + i, "ls", "{\"d\":" + i + "}"));
                    if (r.nextBoolean()) s.legacyResult(a, "L" + i, "listing " + i + "x".repeat(r.nextInt(200)));
                }
                case 4 -> s.legacyResult(a, "L" + (i - r.nextInt(5)), "late " + i);
                case 5 -> s.user("more " + i);
                default -> s.system("note " + i);
            }
        }
        return s;
    }

    @Test
    void shouldRenderTheSameFromCompactedAndFullState() {
        Policy[] policies = {
                Policy.builder().transcriptBudgetChars(3_000).brickBudgetCliChars(2_000).inlineTrailBytes(5_000).manifestCapChars(600).build(),
                Policy.builder().transcriptBudgetChars(8_000).digestBudgetChars(1_500).build(),
                Policy.builder().transcriptBudgetChars(20_000).build()};
        for (long seed = 0; seed < 30; seed++) {
            Policy p = policies[(int) (seed % policies.length)];
            Sessions s = session(seed, 600, p);
            SessionState compacted = s.state();
            SessionState full = s.fullState();
            if (seed % policies.length != 2) {
                assertThat(compacted.compacted().count).as("seed %d compacts", seed).isPositive();
            }
            for (Handoff h : new Handoff[]{
                    new Handoff("a", "qwen", "opus", Target.LOCAL, null, null, null),
                    new Handoff("b", null, "qwen", Target.LOCAL, null, null, 2_500),
                    new Handoff("c", "qwen", "coder", Target.CLAUDE_CLI, "brief", null, null)}) {
                Snapshot a = s.render(compacted, h);
                Snapshot b = s.render(full, h);
                assertThat(a).as("seed %d hand-off %s", seed, h.handoffId()).isEqualTo(b);
            }
        }
    }

    @Test
    void shouldKeepStateBoundedForToolOnlyTurnsWithoutText() {
        Policy p = Policy.builder().transcriptBudgetChars(10_000).build();
        Sessions s = Sessions.create().policy(p).user("task").say("qwen", "plan");
        // Retained trails are bounded by bytes (R3: 163,840 after the 2 newest); beyond them, empty turns leave state.
        for (int i = 0; i < 5_000; i++) s.act("qwen", "", ok("c" + i, "poll", "{\"i\":" + i + "}", "status ok ".repeat(20)));
        SessionState st = s.state();
        System.out.println("tool-only turns: body " + st.body().size() + ", encoded " + StateStorage.InMemory.of(st).dump().length);
        assertThat(st.body().size()).isLessThan(2_000);
        assertThat(StateStorage.InMemory.of(st).dump().length).isLessThan(600_000);
        assertThat(s.render(st, new Handoff("h", null, "opus", Target.LOCAL, null, null, null)))
                .isEqualTo(s.render(s.fullState(), new Handoff("h", null, "opus", Target.LOCAL, null, null, null)));
    }

    @Test
    void shouldKeepTheRunningBodySumsEqualToAWalkOverTheBody() {
        // Compaction keeps the body's minimal sizes as running sums; they must equal a full walk after every turn,
        // after the state is read back from its stored form (sums recomputed), and under another brick result cap.
        Policy small = Policy.builder().transcriptBudgetChars(3_000).brickBudgetCliChars(2_000).brickResultCapChars(50)
                .build();
        Policy other = Policy.builder().transcriptBudgetChars(3_000).brickBudgetCliChars(2_000)
                .brickResultCapChars(400).build();
        for (long seed = 0; seed < 10; seed++) {
            Sessions s = session(seed, 300, small);
            SessionState state = SessionState.empty();
            int i = 0;
            for (var turn : s.turns) {
                Policy p = i < 150 ? small : other;
                state.offerTurn(turn, p, 0L);
                assertThat(state.transcript.sumsConsistent(p)).as("seed %d after turn %d", seed, i).isTrue();
                if (++i == 100) state = StateStorage.InMemory.roundTrip(state);
            }
            assertThat(state.compacted().count).as("seed %d compacts", seed).isPositive();
        }
    }

    @Test
    void shouldStoreTheSameWhetherOrNotTheStateIsReadBackBetweenTurns() {
        // A read-back state starts its running sums (body sizes, the trail ledger's manifest size) from its entries
        // instead of walking; applying turns to it must store exactly what applying them to the live state stores —
        // with results under the brick cap (sums taken at read-back) and over it (one walk), and a tiny manifest cap.
        Policy[] policies = {
                Policy.builder().transcriptBudgetChars(3_000).brickBudgetCliChars(2_000).brickResultCapChars(50)
                        .inlineTrailBytes(2_000).manifestCapChars(300).build(),
                Policy.builder().transcriptBudgetChars(3_000).brickBudgetCliChars(2_000).brickResultCapChars(100_000)
                        .inlineTrailBytes(5_000).manifestCapChars(600).build()};
        for (long seed = 0; seed < 12; seed++) {
            Policy p = policies[(int) (seed % policies.length)];
            Sessions s = session(seed, 250, p);
            SessionState live = SessionState.empty();
            StateStorage.InMemory stored = StateStorage.InMemory.of(SessionState.empty());
            int i = 0;
            for (var turn : s.turns) {
                live.offerTurn(turn, p, 0L);
                SessionState back = stored.load();
                back.offerTurn(turn, p, 0L);
                assertThat(back.transcript.sumsConsistent(p)).as("seed %d turn %d", seed, i).isTrue();
                stored.store(back);
                assertThat(stored.dump()).as("seed %d turn %d", seed, i++)
                        .isEqualTo(StateStorage.InMemory.of(live).dump());
            }
            assertThat(live.compacted().count + live.manifestUnlisted()).as("seed %d compacts", seed).isPositive();
        }
    }
}
