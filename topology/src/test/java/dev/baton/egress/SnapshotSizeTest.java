package dev.baton.egress;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.SnapshotSize;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.serde.MockSchemaRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SnapshotSize} is an upper bound of what the real encoders write, for sessions chosen to make the per-unit
 * and per-message overheads as large as they get: control characters (six bytes each in JSON), astral and CJK text,
 * the longest names and ids, many tiny messages, tool calls and truncations.
 */
class SnapshotSizeTest {
    private static final String LONG_AGENT_A = "a".repeat(64);
    private static final String LONG_AGENT_B = "b".repeat(64);
    private static final String LONG_ID = "i".repeat(120);

    @ParameterizedTest
    @EnumSource(SnapshotSize.Encoding.class)
    void shouldBoundTheEncodedSizeOfAdversarialSnapshots(SnapshotSize.Encoding encoding) {
        SnapshotEncoder encoder = encoding == SnapshotSize.Encoding.AVRO
                ? SnapshotEncoder.avro(MockSchemaRegistry.forScope("snapshot-size-" + System.nanoTime()))
                : SnapshotEncoder.json();
        Policy small = Policy.defaults().toBuilder().build();
        List<IntFunction<Turn>> shapes = List.of(
                i -> Turn.of(i, i % 2 == 0 ? LONG_AGENT_A : LONG_AGENT_B, Role.ASSISTANT, "x"),
                i -> Turn.of(i, "u", Role.USER, "\u0001\u0002\"\\"),
                i -> Turn.of(i, "platform", Role.SYSTEM, "\uD83D\uDE00".repeat(50)),
                i -> Turn.of(i, LONG_AGENT_A, Role.ASSISTANT, "\u4E2D".repeat(2_000)),
                i -> new Turn(i, i % 3 == 0 ? "z" : LONG_AGENT_B, Role.ASSISTANT, "",
                        List.of(new ToolStep(LONG_ID + i, "t", "{}", "\u0000", StepStatus.OK),
                                new ToolStep(LONG_ID + "e" + i, "t", "{\"k\":\"\\u0001\"}", "", StepStatus.ERROR)),
                        List.of(), null, null, null),
                i -> i % 2 == 1
                        ? new Turn(i, "z", Role.ASSISTANT, "", List.of(), List.of(new ToolCall(LONG_ID + i, "t", "{}")),
                        null, null, null)
                        : new Turn(i, "z", Role.TOOL, "\u0007", List.of(), List.of(), LONG_ID + (i - 1), null, null));
        for (IntFunction<Turn> shape : shapes) {
            for (int turns : new int[]{50, 3_000}) {
                SessionState state = SessionState.empty();
                state.offerTurn(Turn.of(0, "u", Role.USER, "task \u0001"), small, 0);
                for (int i = 1; i < turns; i++) state.offerTurn(shape.apply(i), small, 0);
                state.offerTurn(Turn.of(turns + 5L, "u", Role.USER, "after a gap"), small, 0);
                for (Target target : Target.values()) {
                    for (Integer budget : new Integer[]{null, 2_000}) {
                        Handoff h = new Handoff(LONG_ID, LONG_AGENT_A, "z".repeat(64), target, "brief \u0001".repeat(300),
                                null, budget);
                        Snapshot s = ContextEngine.render("t".repeat(128), "s".repeat(128), state,
                                new ReadyHandoff(h, 0, null), small);
                        long actual = encoder.encode("baton.context-snapshots", s).length;
                        assertThat(actual).as("%s bytes of %d turns, %s, budget %s", encoding, turns, target, budget)
                                .isLessThanOrEqualTo(SnapshotSize.of(s, encoding));
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SnapshotSize.Encoding.class)
    void shouldFitTheDefaultPolicyIntoEightMebibytes(SnapshotSize.Encoding encoding) {
        assertThat(SnapshotSize.policyBound(Policy.defaults(), encoding)).isLessThan(8L * 1024 * 1024);
        Policy large = Policy.defaults().toBuilder().build();
        List<Long> bounds = new ArrayList<>();
        for (int budget : new int[]{100_000, 400_000, 1_600_000}) {
            Policy.Builder b = large.toBuilder();
            b.transcriptBudgetChars = budget;
            bounds.add(SnapshotSize.policyBound(b.build(), encoding));
        }
        assertThat(bounds).isSorted();
        assertThat(bounds.get(2) - bounds.get(1)).isEqualTo(1_200_000L * encoding.bytesPerChar);
    }
}
