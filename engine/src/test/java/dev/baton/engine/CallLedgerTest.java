package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.policy.ToolPatterns;
import dev.baton.engine.snapshot.CallLedgerEntry;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.TruncationKind;
import org.junit.jupiter.api.Test;

import static dev.baton.engine.Sessions.call;
import static dev.baton.engine.Sessions.error;
import static dev.baton.engine.Sessions.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The call ledger's examples (docs/rendering.md, "Call ledger"): "ran the same test 14 times, failed 12" is one
 * entry; legacy calls are unanswered until their TOOL turn; side-effecting tools are listed as done in the brick,
 * newest first, within a quarter of it, and with no pattern the brick is exactly as without a ledger.
 */
class CallLedgerTest {
    private static final Handoff LOCAL = new Handoff("h", "qwen", "opus", Target.LOCAL, null, null, null);
    private static final Policy SIDE_EFFECTS = Policy.builder().sideEffectTools("apply_patch, git_*").build();

    @Test
    void shouldGroupTheSameTestRunFourteenTimesIntoOneEntry() {
        Sessions ses = Sessions.create().user("fix it");
        for (int i = 0; i < 14; i++) {
            ses.act("qwen", "", i < 12 ? error("t" + i, "run_tests", "{\"suite\": \"unit\"}", "FAILED")
                    : ok("t" + i, "run_tests", "{\"suite\":\"unit\"}", "passed"));
        }
        Snapshot s = ses.render(LOCAL);
        assertThat(s.callLedger().entries()).singleElement().satisfies(e -> {
            assertThat(e.count()).isEqualTo(14);
            assertThat(e.error()).isEqualTo(12);
            assertThat(e.ok()).isEqualTo(2);
            assertThat(e.callId()).isEqualTo("t13");
            assertThat(e.firstSeq()).isEqualTo(1);
            assertThat(e.seq()).isEqualTo(14);
        });
        assertThat(s.callLedger().calls()).isEqualTo(14);
    }

    @Test
    void shouldMarkALegacyCallUnansweredUntilItsToolTurnArrives() {
        Sessions ses = Sessions.create().user("t").legacyCall("qwen", "", call("L1", "grep", "{\"q\":\"x\"}"));
        assertThat(ses.render(LOCAL).callLedger().entries().get(0).status()).isEqualTo("UNANSWERED");
        ses.legacyResult("qwen", "L1", "found");
        CallLedgerEntry e = ses.render(LOCAL).callLedger().entries().get(0);
        assertThat(e.status()).isEqualTo("OK");
        assertThat(e.ok()).isEqualTo(1);
        assertThat(e.unanswered()).isZero();
        assertThat(e.resultBytes()).isEqualTo(5);
    }

    @Test
    void shouldHaveNoLedgerForASessionWithoutCallsOrWithTheLedgerOff() {
        assertThat(Sessions.create().user("t").say("qwen", "hi").render(LOCAL).callLedger()).isNull();
        Sessions ses = Sessions.create().policy(Policy.builder().callLedgerEntries(0).build()).user("t")
                .act("qwen", "", ok("c1", "grep", "{}", "x"));
        assertThat(ses.render(LOCAL).callLedger()).isNull();
    }

    @Test
    void shouldListSideEffectingCallsAsDoneInTheBrickNewestFirst() {
        Snapshot s = Sessions.create().policy(SIDE_EFFECTS).user("ship it")
                .act("qwen", "", ok("p1", "apply_patch", "{\"file\":\"A.java\"}", "applied"))
                .act("qwen", "", ok("r1", "run_tests", "{}", "ok"))
                .act("qwen", "pushed", ok("g1", "git_push", "{\"remote\":\"origin\"}", "done"))
                .render(LOCAL);
        assertThat(s.brick()).contains("[done — side-effecting calls already made, newest first; do not repeat them]\n"
                + "[done seq 3 qwen] git_push({\"remote\":\"origin\"}) → OK]\n"
                + "[done seq 1 qwen] apply_patch({\"file\":\"A.java\"}) → OK]");
        assertThat(s.brick()).doesNotContain("[done seq 2");
        assertThat(s.callLedger().entries()).filteredOn(CallLedgerEntry::sideEffecting).hasSize(2);
    }

    @Test
    void shouldLeaveTheBrickUnchangedWithoutPatterns() {
        Sessions ses = Sessions.create().user("ship it").act("qwen", "", ok("p1", "apply_patch", "{}", "applied"));
        Snapshot plain = ses.render(LOCAL);
        Snapshot off = ses.policy(Policy.builder().callLedgerEntries(0).build()).render(LOCAL);
        assertThat(plain.brick()).isEqualTo(off.brick()).doesNotContain("[done");
        assertThat(plain.truncations()).isEqualTo(off.truncations());
    }

    @Test
    void shouldBoundTheDoneListToAQuarterOfTheBrickWithAMarker() {
        Sessions ses = Sessions.create().policy(SIDE_EFFECTS).user("t");
        for (int i = 0; i < 40; i++) ses.act("qwen", "", ok("p" + i, "apply_patch", "{\"n\":" + i + "}", "ok"));
        Snapshot s = ses.render(LOCAL);
        String from = s.brick().substring(s.brick().indexOf("[done —"));
        String done = from.substring(0, from.indexOf(" call_ledger)") + " call_ledger)".length());
        assertThat(done.length()).isLessThanOrEqualTo(3_000 / 4);
        assertThat(done).startsWith("[done —").contains("[done seq 40 qwen]").endsWith("— see the snapshot's call_ledger)");
        assertThat(s.truncations()).anyMatch(t -> t.kind() == TruncationKind.BRICK_ACTIVITY_OMITTED
                && t.seqFrom() == null && done.endsWith(t.marker()));
        assertThat(s.brick().length()).isLessThanOrEqualTo(3_000);
    }

    @Test
    void shouldMatchToolNamesAgainstGlobs() {
        assertThat(ToolPatterns.matchesAny("apply_patch, git_push, create_*", "create_issue")).isTrue();
        assertThat(ToolPatterns.matchesAny("apply_patch, git_push, create_*", "git_push")).isTrue();
        assertThat(ToolPatterns.matchesAny("apply_patch, git_push, create_*", "git_pull")).isFalse();
        assertThat(ToolPatterns.matchesAny("*_write?", "fs_write2")).isTrue();
        assertThat(ToolPatterns.matchesAny("*_write?", "fs_write")).isFalse();
        assertThat(ToolPatterns.matchesAny("", "anything")).isFalse();
        assertThat(ToolPatterns.matchesAny("*", "anything")).isTrue();
    }
}
