package dev.baton.engine.properties;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.FramingKind;
import dev.baton.engine.snapshot.Snapshot;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R6 brick budget, R11 CLAUDE_CLI snapshots (no messages, parity 0/0 with the receiver as reference), R7 framing
 * (OWNER_FROM_START exactly when only the receiver acted, there is no brief and no previous owner).
 */
class BrickAndFramingProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> soloSessions() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL).map(SessionArbitraries.Scenario::solo);
    }

    @Property(tries = 150)
    void shouldKeepTheBrickWithinItsBudgetAndFrameBySessionShape(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Property(tries = 100)
    void shouldFrameSoloSessionsAsTheReceiversOwn(@ForAll("soloSessions") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    static void check(SessionArbitraries.Scenario sc) {
        Handoff h = sc.handoff();
        SessionArbitraries.Run run = sc.run();
        dev.baton.engine.state.SessionState state = run.state();
        Snapshot snap = run.render(state, h);
        // R6 with Baton's reading for tiny tenant bricks (docs/rendering.md): budgets floor at 1,000 characters, and a
        // small brick folds its missing ranges into one line, so the budget always holds.
        int brickBudget = Math.max(dev.baton.engine.brick.BrickBuilder.MIN_BUDGET_CHARS,
                h.target() == Target.CLAUDE_CLI ? sc.policy().brickBudgetCliChars() : sc.policy().brickBudgetLocalChars());
        assertThat(snap.brick().length()).as("brick within %s\n%s", brickBudget, Renderings.dump(snap))
                .isLessThanOrEqualTo(brickBudget);
        long required = Renderings.lines(snap.brick()).get(0).length() + 200;
        assertThat(snap.stats().brickChars()).isEqualTo(snap.brick().length());

        // R6: at most brick_max_agents agents on the session line ("and others" when more acted).
        String sessionLine = Renderings.lines(snap.brick()).get(0);
        int agentsAt = sessionLine.indexOf("; agents: ");
        if (agentsAt >= 0) {
            String names = sessionLine.substring(agentsAt + "; agents: ".length(), sessionLine.length() - 1)
                    .replace(" and others", "");
            assertThat(names.split(", ").length).as(sessionLine).isLessThanOrEqualTo(sc.policy().brickMaxAgents());
            assertThat(sessionLine.endsWith(" and others]"))
                    .as("%s with %s actors", sessionLine, sc.actors().size())
                    .isEqualTo(sc.actors().size() > sc.policy().brickMaxAgents());
        }
        // R6: the session line (tenant, session, turns), every TURNS_MISSING marker, the newest turn.
        long turns = state.turnCount();
        assertThat(snap.brick()).startsWith("[session s1 of tenant acme: " + turns + (turns == 1 ? " turn" : " turns"));
        for (var t : snap.truncations()) {
            if (t.kind() == dev.baton.engine.snapshot.TruncationKind.TURNS_MISSING) {
                assertThat(snap.brick()).as("missing range in the brick").contains(t.marker());
                required += t.marker().length() + 1;
            }
        }
        var turnsSent = sc.turns();
        // The newest activity gets room only after the fixed parts (session line, task, brief, missing markers).
        long fixedParts = required + sc.policy().brickTaskChars() + 10 + (h.brief() == null ? 0
                : Math.min(h.brief().length(), sc.policy().brickBriefChars()) + 10) + 200;
        if (!turnsSent.isEmpty() && brickBudget >= fixedParts) {
            var newest = turnsSent.get(turnsSent.size() - 1);
            if (newest.role() != dev.baton.engine.model.Role.TOOL) {
                assertThat(snap.brick()).as("newest turn in the brick\n%s", Renderings.dump(snap))
                        .contains("[seq " + newest.seq() + " ");
            }
        }

        if (h.target() == Target.CLAUDE_CLI) {
            assertThat(snap.messages()).isEmpty();
            assertThat(snap.stats().messageChars()).isZero();
            assertThat(snap.parity().referenceAgent()).isEqualTo(h.toAgent());
            assertThat(snap.parity().referenceItems()).isZero();
            assertThat(snap.parity().coveredItems()).isZero();
        } else if (sc.primary() == null) {
            assertThat(snap.parity().referenceAgent()).isEqualTo(h.toAgent());
            assertThat(snap.parity().referenceItems()).isZero();
        }

        Set<String> actors = sc.actors();
        boolean onlyReceiver = actors.isEmpty() || actors.equals(Set.of(h.toAgent()));
        boolean owner = onlyReceiver && h.brief() == null && h.fromAgent() == null;
        Statistics.label("framing").collect(snap.framing().kind());
        assertThat(snap.framing().kind()).as("actors %s, brief %s, from %s", actors, h.brief(), h.fromAgent())
                .isEqualTo(owner ? FramingKind.OWNER_FROM_START : FramingKind.CONTINUITY);
        String prompt = snap.framing().systemPrompt();
        assertThat(prompt).doesNotContain("Escalation brief from primary agent")
                .doesNotContain("Expect mid-conversation hand-offs").contains(h.toAgent());
        if (owner) {
            // The owner prompt names the receiver only: it attributes nothing to another agent.
            assertThat(prompt).isEqualTo(sc.policy().ownerFramingPrompt().replace("{agent}", h.toAgent()));
        }
    }
}
