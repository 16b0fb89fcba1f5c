package dev.baton.engine.state;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compaction by the index ({@link Transcript#compact}: Fenwick trees of the minimal sizes, bit sets of the turns that
 * always or never render) leaves exactly what the reference walk from the oldest body turn
 * ({@link ReferenceCompaction}) leaves: the same body, compacted count, span and digest lines, and the same
 * journal, after any sequence of turns (every role, short and long texts, trails, legacy calls answered by the head
 * or later turns, results that never find their call), changing policies (budgets, brick result caps, digest
 * budgets) and read-backs from the stored entries.
 */
class CompactionIndexProperties {

    /** One step: a turn of some kind and size under a policy, or a read-back of both states. */
    record Op(int kind, int size, int target, int policy) {
    }

    private static final Policy[] POLICIES = {
            Policy.defaults(),
            Policy.builder().transcriptBudgetChars(300).minTranscriptBudgetChars(0).brickBudgetCliChars(1_000)
                    .brickBudgetLocalChars(1_000).brickResultCapChars(40).digestBudgetChars(400).build(),
            Policy.builder().transcriptBudgetChars(2_000).minTranscriptBudgetChars(0).brickBudgetCliChars(1_000)
                    .brickBudgetLocalChars(1_000).brickResultCapChars(500).digestBudgetChars(100_000)
                    .expandedTrailTurns(1).inlineTrailBytes(200).manifestCapChars(150).build(),
            Policy.builder().transcriptBudgetChars(800).minTranscriptBudgetChars(0).brickBudgetCliChars(3_000)
                    .brickBudgetLocalChars(1_000).brickResultCapChars(0).digestBudgetChars(2_000)
                    .expandedTrailTurns(0).inlineTrailBytes(0).manifestCapChars(60).build(),
            Policy.builder().transcriptBudgetChars(5_000).minTranscriptBudgetChars(0).brickBudgetCliChars(1_200)
                    .brickBudgetLocalChars(1_000).brickResultCapChars(100_000).digestBudgetChars(700)
                    .expandedTrailTurns(3).inlineTrailBytes(1_500).manifestCapChars(1_000).build(),
    };

    @Provide
    Arbitrary<Op> op() {
        return Combinators.combine(
                Arbitraries.frequency(
                        net.jqwik.api.Tuple.of(4, 0), // ASSISTANT with text
                        net.jqwik.api.Tuple.of(3, 1), // ASSISTANT, empty, with a trail
                        net.jqwik.api.Tuple.of(3, 2), // ASSISTANT with legacy calls (empty or not)
                        net.jqwik.api.Tuple.of(3, 3), // TOOL answering an open call (or none)
                        net.jqwik.api.Tuple.of(2, 4), // USER
                        net.jqwik.api.Tuple.of(1, 5), // SYSTEM
                        net.jqwik.api.Tuple.of(1, 6), // ASSISTANT, empty, nothing
                        net.jqwik.api.Tuple.of(1, 7)), // read back both states
                Arbitraries.oneOf(Arbitraries.integers().between(0, 30), Arbitraries.integers().between(0, 2_500)),
                Arbitraries.integers().between(0, 1_000),
                Arbitraries.integers().between(0, POLICIES.length - 1)).as(Op::new);
    }

    @Property(tries = 300)
    void shouldCompactByTheIndexExactlyAsTheWalk(@ForAll @Size(min = 20, max = 250) List<@From("op") Op> ops,
                                                 @ForAll boolean onePolicy) {
        check(ops, onePolicy);
        Statistics.label("compacted").coverage(c -> c.check(true).percentage(p -> p >= 30));
    }

    @Property(tries = 6)
    void shouldCompactByTheIndexExactlyAsTheWalkOverLongSessions(
            @ForAll @Size(min = 2_000, max = 3_000) List<@From("op") Op> ops) {
        // Long enough for the slots to grow and be repacked many times with the index built.
        check(ops, true);
    }

    private static void check(List<Op> ops, boolean onePolicy) {
        SessionState index = SessionState.empty();
        SessionState walk = ReferenceCompaction.byWalk(SessionState.empty());
        index.journal();
        walk.journal();
        List<String> open = new ArrayList<>();
        long seq = 0;
        int step = 0;
        for (Op op : ops) {
            Policy policy = POLICIES[onePolicy ? 1 : op.policy()];
            String at = "step " + step++ + " " + op;
            if (op.kind() == 7) {
                index = StateStorage.InMemory.roundTrip(index);
                walk = ReferenceCompaction.byWalk(StateStorage.InMemory.roundTrip(walk));
                continue;
            }
            Turn t = turn(op, seq++, open);
            index.offerTurn(t, policy, 0L);
            walk.offerTurn(t, policy, 0L);
            assertThat(index.transcript.compaction).isNull();
            assertThat(seqs(index.body())).as(at).isEqualTo(seqs(walk.body()));
            Compacted a = index.compacted();
            Compacted b = walk.compacted();
            assertThat(List.of(a.count, a.fromSeq, a.toSeq, a.lineChars, a.overflow)).as(at)
                    .isEqualTo(List.of(b.count, b.fromSeq, b.toSeq, b.lineChars, b.overflow));
            assertThat(a.lines).as(at).isEqualTo(b.lines);
            assertThat(a.lineSeqs).as(at).isEqualTo(b.lineSeqs);
            assertThat(index.transcript.weight).as(at).isEqualTo(walk.transcript.weight);
            assertThat(index.journal.drain()).as(at).isEqualTo(walk.journal.drain());
            assertThat(index.transcript.sumsConsistent(policy)).as(at).isTrue();
            for (StoredTurn st : walk.body()) assertThat(index.transcript.find(st.seq)).as(at).isNotNull();
        }
        assertThat(StateStorage.InMemory.of(index).dump()).isEqualTo(StateStorage.InMemory.of(walk).dump());
        Statistics.label("compacted").collect(index.compacted().count > 0);
        Statistics.label("never-render turns dropped").collect(
                walk.turnCount() - walk.body().size() - walk.compacted().count > 2);
    }

    private static Turn turn(Op op, long seq, List<String> open) {
        String agent = "agent" + op.target() % 3;
        String text = "x".repeat(op.size());
        switch (op.kind()) {
            case 0:
                return Turn.of(seq, agent, Role.ASSISTANT, "said " + seq + " " + text);
            case 1: {
                List<ToolStep> trail = new ArrayList<>();
                for (int i = 0; i <= op.target() % 3; i++) {
                    trail.add(new ToolStep("c" + seq + "-" + i, "tool" + (op.target() + i) % 5, "{\"n\":" + i + "}",
                            text, i == 1 ? StepStatus.ERROR : StepStatus.OK));
                }
                return new Turn(seq, agent, Role.ASSISTANT, "", trail, List.of(), null, null, null);
            }
            case 2: {
                List<ToolCall> calls = new ArrayList<>();
                for (int i = 0; i <= op.target() % 2; i++) {
                    String id = "L" + seq + "-" + i;
                    calls.add(new ToolCall(id, "ls", "{\"d\":" + i + "}"));
                    open.add(id);
                }
                String said = op.target() % 2 == 0 ? "" : "calling " + seq;
                return new Turn(seq, agent, Role.ASSISTANT, said, List.of(), calls, null, null, null);
            }
            case 3: {
                // an open call (the head's first, when it made one), or an unknown id
                String id = open.isEmpty() || op.target() % 5 == 0 ? "unknown" + seq
                        : open.remove(op.target() % open.size());
                return new Turn(seq, agent, Role.TOOL, "result " + seq + " " + text, List.of(), List.of(), id, null,
                        null);
            }
            case 4:
                return Turn.of(seq, "user", Role.USER, "more " + seq + " " + text);
            case 5:
                return Turn.of(seq, "system", Role.SYSTEM, "note " + seq + " " + text);
            default:
                return Turn.of(seq, agent, Role.ASSISTANT, "");
        }
    }

    private static List<Long> seqs(List<StoredTurn> turns) {
        List<Long> out = new ArrayList<>(turns.size());
        for (StoredTurn t : turns) out.add(t.seq);
        return out;
    }
}
