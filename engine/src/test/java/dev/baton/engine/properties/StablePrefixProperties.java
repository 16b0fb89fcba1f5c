package dev.baton.engine.properties;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.PrefixPrint;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Stats;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import dev.baton.engine.tokens.Tokenizers;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code stats.stable_prefix_chars} and the trim step (docs/rendering.md, "Stable prefix" and "Trim step"): the figure
 * equals a recomputation from the two snapshots' messages; remembering prints changes no rendering while steps are
 * off; with steps on the transcript stays within budget, its tail moves only after more than the step's characters
 * arrived, and while it does not move the previous transcript is the whole stable prefix.
 */
class StablePrefixProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> adversarial() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.ADVERSARIAL);
    }

    @Property(tries = 150)
    void shouldReportWhatARecomputationFromBothSnapshotsFinds(@ForAll("sessions") SessionArbitraries.Scenario sc,
                                                              @ForAll @IntRange(min = 1, max = 6) int every,
                                                              @ForAll @IntRange(min = 0, max = 3) int stepPick) {
        handOffAlong(sc, every, new int[] {0, 0, 300, 3_000}[stepPick]);
    }

    @Property(tries = 60)
    void shouldReportWhatARecomputationFindsWithAdversarialData(
            @ForAll("adversarial") SessionArbitraries.Scenario sc, @ForAll @IntRange(min = 1, max = 6) int every) {
        handOffAlong(sc, every, 0);
    }

    /**
     * Applies the session a few turns at a time, hands off after each group to one of three receivers (the stored
     * state read back in between every other time), and checks each snapshot's figure against its receiver's previous
     * snapshot; with steps off, also that the snapshot equals one rendered from a state that remembers nothing.
     */
    static void handOffAlong(SessionArbitraries.Scenario sc, int every, int step) {
        Policy policy = sc.policy().toBuilder().trimStepChars(step).build();
        SessionState state = SessionState.empty();
        SessionState forgetful = SessionState.empty();
        Map<String, Snapshot> previous = new HashMap<>();
        List<String> receivers = List.of(sc.receiver(), sc.agents().get(0), "newcomer");
        int n = 0;
        for (int i = 0; i < sc.turns().size(); i++) {
            state.offerTurn(sc.turns().get(i), policy, 0L);
            forgetful.offerTurn(sc.turns().get(i), policy, 0L);
            if ((i + 1) % every != 0 && i + 1 < sc.turns().size()) continue;
            String to = receivers.get(n % receivers.size() == 2 && n % 4 != 2 ? 0 : n % receivers.size());
            Handoff h = new Handoff("h" + n, null, to, Target.LOCAL, sc.brief(), null, sc.handoffBudget());
            ReadyHandoff ready = new ReadyHandoff(h, 1_000L, null);
            ContextEngine.Rendered r = ContextEngine.renderWithPrint("t", "s", state, ready, policy,
                    Tokenizers.none(), LayoutCache.none());
            Snapshot snap = r.snapshot();
            Snapshot before = previous.get(to);
            if (before == null) {
                assertThat(snap.stats().stablePrefixChars()).as("first snapshot of %s", to).isNull();
            } else {
                long expected = recomputed(before.messages(), snap.messages());
                Statistics.label("stable prefix").collect(expected == 0 ? "0"
                        : expected == before.stats().messageChars() ? "whole previous" : "blocks");
                assertThat(snap.stats().stablePrefixChars()).as("stable prefix against %s's previous", to)
                        .isEqualTo(expected);
            }
            assertThat(snap.stats().messageChars()).isEqualTo(r.print().length());
            if (step == 0) {
                Snapshot plain = ContextEngine.render("t", "s", forgetful, ready, policy);
                assertThat(withoutPrefix(snap)).as("remembering changes no rendering").isEqualTo(withoutPrefix(plain));
            }
            state.rememberPrint(to, r.print());
            previous.put(to, snap);
            if (n % 2 == 1) state = StateStorage.InMemory.roundTrip(state);
            n++;
        }
    }

    static Snapshot withoutPrefix(Snapshot s) {
        Stats t = s.stats();
        return new Snapshot(s.snapshotId(), s.tenantId(), s.sessionId(), s.handoffId(), s.fromAgent(), s.toAgent(),
                s.target(), s.asOfSeq(), s.turnCount(), s.occurredAtMillis(), s.framing(), s.brick(), s.messages(),
                s.retention(), s.truncations(), new Stats(t.messageChars(), t.brickChars(), t.estimatedTokens(),
                        t.tokenCounts(), null), s.parity());
    }

    // ------------------------------------------------------------------------------------------ recomputation

    /**
     * The figure from both message lists, directly: each list as a sequence of items — a mark (role, name,
     * tool_call_id; per tool call its id and a separator) or one counted character — compared item by item; the
     * longest shared prefix ends at a counted character; it is the whole previous stream, or it is rounded down to
     * whole blocks.
     */
    static long recomputed(List<Message> before, List<Message> now) {
        List<String> a = items(before);
        List<String> b = items(now);
        long counted = 0;
        long shared = 0; // counted characters of the longest shared prefix that ends at a counted character
        for (int i = 0; i < Math.min(a.size(), b.size()) && a.get(i).equals(b.get(i)); i++) {
            if (a.get(i).startsWith("c")) shared = ++counted;
        }
        long total = 0;
        for (String s : a) if (s.startsWith("c")) total++;
        return shared == total ? total : shared / PrefixPrint.BLOCK_CHARS * PrefixPrint.BLOCK_CHARS;
    }

    static List<String> items(List<Message> messages) {
        List<String> out = new ArrayList<>();
        for (Message m : messages) {
            out.add("m" + m.role());
            out.add("m" + m.name());
            out.add("m" + m.toolCallId());
            chars(out, m.content());
            for (ToolCall c : m.toolCalls()) {
                out.add("m" + c.callId());
                chars(out, c.tool());
                out.add("s");
                chars(out, c.arguments());
            }
        }
        return out;
    }

    static void chars(List<String> out, String s) {
        for (int i = 0; i < s.length(); i++) out.add("c" + s.charAt(i));
    }

    // ------------------------------------------------------------------------------------------ trim step

    @Provide
    Arbitrary<List<String>> texts() {
        return Arbitraries.strings().withChars("abcdef ghij.\n").ofMinLength(150).ofMaxLength(500).list()
                .ofMinSize(20).ofMaxSize(90);
    }

    /**
     * A conversation of texts (USER and ASSISTANT in turns) handed off to one receiver every few turns, with a small
     * budget and steps of N: within budget always; the tail's first turn moves only once more than N characters
     * arrived since it last moved; and while it stays, the receiver's previous transcript is the whole stable prefix.
     */
    @Property(tries = 150)
    void shouldMoveTheTailOnlyByTheStepAndStayWithinBudget(@ForAll("texts") List<String> texts,
                                                           @ForAll @IntRange(min = 4_000, max = 9_000) int budget,
                                                           @ForAll @IntRange(min = 1, max = 1_000) int step,
                                                           @ForAll @Size(min = 30, max = 30) List<@IntRange(min = 1,
                                                                   max = 4) Integer> gaps) {
        // Steps of up to a quarter of the budget, texts of at most 500: there is always room for a stepped tail.
        Policy policy = Policy.builder().transcriptBudgetChars(budget).trimStepChars(step * budget / 4_000).build();
        step = policy.trimStepChars();
        SessionState state = SessionState.empty();
        Snapshot before = null;
        long anchor = -1;
        boolean marker = false;
        long addedSinceMove = 0;
        int next = 0;
        for (int i = 0; i < texts.size(); i++) {
            Role role = i % 2 == 0 ? Role.USER : Role.ASSISTANT;
            state.offerTurn(new Turn(i, "qwen", role, texts.get(i), List.of(), List.of(), null, null, null), policy, 0L);
            addedSinceMove += texts.get(i).length();
            if (i < next) continue;
            next = i + gaps.get(i % gaps.size());
            Handoff h = new Handoff("h" + i, null, "reviewer", Target.LOCAL, null, null, null);
            ContextEngine.Rendered r = ContextEngine.renderWithPrint("t", "s", state, new ReadyHandoff(h, 1L, null),
                    policy, Tokenizers.none(), LayoutCache.none());
            Snapshot snap = r.snapshot();
            assertThat(snap.stats().messageChars()).as("within budget").isLessThanOrEqualTo(budget);
            long now = r.print().anchorSeq();
            boolean moved = now != anchor || r.print().anchorMarker() != marker;
            if (anchor >= 0 && now >= 0) {
                if (!moved) {
                    Statistics.label("tail").collect("kept");
                    assertThat(snap.stats().stablePrefixChars()).as("kept tail: the previous transcript is a prefix")
                            .isEqualTo(before.stats().messageChars());
                } else {
                    Statistics.label("tail").collect("moved");
                    assertThat(addedSinceMove).as("characters arrived before the tail moved").isGreaterThan(step);
                }
            }
            if (moved) addedSinceMove = 0;
            anchor = now;
            marker = r.print().anchorMarker();
            state.rememberPrint("reviewer", r.print());
            before = snap;
        }
    }
}
