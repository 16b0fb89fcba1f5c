package dev.baton.engine.properties;

import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionState;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token cap (docs/rendering.md, "Token cap"): a transcript budget in tokens besides characters, the smaller
 * winning. It fits whenever the character floor allows, it never raises the character budget, every receiver gets the
 * same budget (R4: the same markers, the same retention), the receiver still sees everything the primary sees (R9),
 * and the snapshot stays a function of its inputs (R10).
 */
class TokenCapProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> capped() {
        return capped(SessionArbitraries.localSessions(SessionArbitraries.Mode.NORMAL));
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> cappedAdversarial() {
        return capped(SessionArbitraries.localSessions(SessionArbitraries.Mode.ADVERSARIAL));
    }

    /**
     * Scenarios under a token cap that mostly binds: drawn between a third of the tokens the transcript has without a
     * cap and a little over them.
     */
    static Arbitrary<SessionArbitraries.Scenario> capped(Arbitrary<SessionArbitraries.Scenario> scenarios) {
        return scenarios.flatMap(sc -> {
            SessionArbitraries.Scenario counted = sc.withPolicy(sc.policy().toBuilder()
                    .tokenCountEncodings(WordPieceTokenizer.NAME).build());
            long tokens = counted.run().render(counted.handoff()).stats().tokenCounts().get(0).transcriptTokens();
            int max = (int) Math.min(Integer.MAX_VALUE, tokens + tokens / 10 + 1);
            return Arbitraries.integers().between((int) Math.max(1, tokens / 3), max).map(cap ->
                    counted.withPolicy(counted.policy().toBuilder().transcriptBudgetTokens(cap)
                            .transcriptBudgetEncoding(WordPieceTokenizer.NAME).build()));
        });
    }

    @Property(tries = 150)
    void shouldFitTheTokenCapUnlessTheCharacterFloorWins(@ForAll("capped") SessionArbitraries.Scenario sc) {
        Snapshot snap = sc.run().render(sc.handoff());
        long tokens = snap.stats().tokenCounts().get(0).transcriptTokens();
        long cap = sc.policy().transcriptBudgetTokens();
        boolean fits = tokens <= cap;
        Statistics.label("fits the token cap").collect(fits);
        Snapshot uncapped = sc.withPolicy(sc.policy().toBuilder().transcriptBudgetTokens(0).build()).run()
                .render(sc.handoff());
        Statistics.label("the cap binds").collect(uncapped.stats().tokenCounts().get(0).transcriptTokens() > cap);
        assertThat(fits || snap.stats().messageChars() <= sc.policy().minTranscriptBudgetChars())
                .as("%d tokens over the cap %d with %d characters\n%s", tokens, cap, snap.stats().messageChars(),
                        Renderings.dump(snap))
                .isTrue();
    }

    @Property(tries = 100)
    void shouldNeverRaiseTheCharacterBudget(@ForAll("capped") SessionArbitraries.Scenario sc) {
        Snapshot capped = sc.run().render(sc.handoff());
        Snapshot uncapped = sc.withPolicy(sc.policy().toBuilder().transcriptBudgetTokens(0).build()).run()
                .render(sc.handoff());
        assertThat(capped.stats().messageChars()).isLessThanOrEqualTo(
                Math.max(uncapped.stats().messageChars(), sc.policy().transcriptBudgetFor(sc.handoffBudget())));
    }

    @Property(tries = 100)
    void shouldGiveEveryReceiverTheSameBudget(@ForAll("capped") SessionArbitraries.Scenario sc) {
        SessionArbitraries.Run run = sc.run();
        SessionState state = run.state();
        Snapshot reference = run.render(state, sc.handoff("newcomer", Target.LOCAL));
        for (String receiver : sc.agents()) {
            Snapshot theirs = run.render(state, sc.handoff(receiver, Target.LOCAL));
            assertThat(theirs.truncations()).as("markers for %s", receiver).isEqualTo(reference.truncations());
            assertThat(theirs.retention()).as("retention for %s", receiver).isEqualTo(reference.retention());
        }
    }

    @Property(tries = 100)
    void shouldShowTheReceiverEverythingThePrimarySeesUnderATokenCap(
            @ForAll("capped") SessionArbitraries.Scenario sc) {
        SupersetProperties.check(sc);
    }

    @Property(tries = 50)
    void shouldShowTheReceiverEverythingThePrimarySeesUnderATokenCapWithAdversarialData(
            @ForAll("cappedAdversarial") SessionArbitraries.Scenario sc) {
        SupersetProperties.check(sc);
    }

    @Property(tries = 60)
    void shouldRenderTheSameSnapshotAgain(@ForAll("capped") SessionArbitraries.Scenario sc) {
        SessionArbitraries.Run run = sc.run();
        Snapshot first = run.render(sc.handoff());
        assertThat(run.render(run.state(), sc.handoff())).isEqualTo(first);
    }
}
