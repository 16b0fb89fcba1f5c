package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.SessionState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What recorded runs of real agents show and synthetic sessions never did (docs/decisions.md, "History kept out of the code"). Each
 * test names the behaviour it holds the engine to.
 */
class RecordedSessionFidelityTest {
    private static final String KB40 = "x".repeat(40 * 1024);
    private static final Handoff TO_OPUS = new Handoff("h", null, "opus", Target.LOCAL, null, null, null);

    /** Snapshots of a session for a receiver, from the compacting state and from the full history. */
    private static List<Snapshot> both(Sessions s, Handoff h) {
        return List.of(s.render(s.state(), h), s.render(s.fullState(), h));
    }

    private static String all(Snapshot s) {
        StringBuilder sb = new StringBuilder(s.brick());
        for (Message m : s.messages()) sb.append('\n').append(m.content());
        return sb.toString();
    }

    // ---- 1. an orphan result is a trail of its own (R3)

    private static Sessions orphanSession() {
        Sessions s = Sessions.create().user("task").say("qwen", "plan");
        s.legacyResult("qwen", "ghost-1", "ORPHAN-RESULT " + "o".repeat(20 * 1024)); // seq 2: its call is unknown
        for (int i = 0; i < 10; i++) s.act("qwen", "step " + i, ok("c" + i, "read_file", "{\"i\":" + i + "}", KB40));
        s.legacyResult("qwen", null, "newest orphan"); // seq 13: a result without a call id
        return s;
    }

    @Test
    void shouldPlanAnOrphanResultAsATrailBearingTurnOfItsOwn() {
        for (Snapshot snap : both(orphanSession(), TO_OPUS)) {
            // seq 13 (the orphan) and 12 are the two newest trails; 11, 10, 9 fit the inline budget.
            assertThat(snap.retention().expandedSeqs()).containsExactly(13L, 12L);
            assertThat(snap.retention().inlinedSeqs()).containsExactly(11L, 10L, 9L);
            assertThat(snap.retention().manifestSeqs()).containsExactly(8L, 7L, 6L, 5L, 4L, 3L, 2L);
            // the old orphan is in the manifest, not kept in full while newer trails are manifested
            assertThat(all(snap)).doesNotContain("ORPHAN-RESULT").contains("[seq 2 qwen: unknown]")
                    .contains("[qwen called unknown({})]\n[result: newest orphan]");
        }
    }

    @Test
    void shouldPutEveryToolTurnWithAResultInExactlyOneRetentionList() {
        Sessions s = orphanSession();
        s.legacyCall("qwen", "", call("L1", "ls", "{}")).legacyResult("qwen", "L1", "answered")
                .legacyResult("qwen", "L1", "answered twice"); // a reused id: the second answer is an orphan
        Snapshot snap = s.render(TO_OPUS);
        List<Long> listed = new ArrayList<>(snap.retention().expandedSeqs());
        listed.addAll(snap.retention().inlinedSeqs());
        listed.addAll(snap.retention().manifestSeqs());
        assertThat(listed).doesNotHaveDuplicates().contains(2L, 13L, 14L, 16L).doesNotContain(15L);
    }

    // ---- 4. a manifest line is true: a manifested legacy step is shown nowhere

    @Test
    void shouldShowAManifestedLegacyStepNowhereElseNotEvenAtItsAnsweringToolTurn() {
        Sessions s = Sessions.create().user("task").say("qwen", "plan")
                .legacyCall("qwen", "listing", call("L1", "ls", "{\"d\":\"/srv\"}"))
                .legacyResult("qwen", "L1", "LISTING-OF-SRV");
        for (int i = 0; i < 10; i++) s.act("qwen", "step " + i, ok("c" + i, "read_file", "{\"i\":" + i + "}", KB40));
        for (Snapshot snap : both(s, TO_OPUS)) {
            assertThat(snap.retention().manifestSeqs()).contains(2L).doesNotContain(3L);
            assertThat(all(snap)).contains("[seq 2 qwen: ls]").doesNotContain("LISTING-OF-SRV")
                    .doesNotContain("{\"d\":\"/srv\"}");
            assertThat(snap.messages()).extracting(Message::content).contains("listing");
        }
        // the same for its owner (the plan is the same whoever receives)
        Snapshot own = s.render(new Handoff("h", null, "qwen", Target.LOCAL, null, null, null));
        assertThat(all(own)).doesNotContain("LISTING-OF-SRV");
    }

    @Test
    void shouldManifestALegacyStepAnsweredAfterItsCallWentToTheManifest() {
        Sessions s = Sessions.create().user("task").say("qwen", "plan")
                .legacyCall("qwen", "", call("L1", "ls", "{}"));
        for (int i = 0; i < 10; i++) s.act("qwen", "step " + i, ok("c" + i, "read_file", "{\"i\":" + i + "}", KB40));
        s.legacyResult("qwen", "L1", "LATE-LISTING");
        for (Snapshot snap : both(s, TO_OPUS)) {
            assertThat(snap.retention().manifestSeqs()).contains(2L);
            assertThat(all(snap)).doesNotContain("LATE-LISTING");
        }
    }

    // ---- 3. a truncation's range spans every seq it counts

    @Test
    void shouldSpanEveryManifestedSeqInTheManifestsTruncation() {
        Sessions s = Sessions.create().policy(Policy.builder().inlineTrailBytes(1_000).manifestCapChars(400).build())
                .user("task").say("qwen", "plan");
        for (int i = 0; i < 40; i++) s.act("qwen", "step " + i, ok("c" + i, "read_file", "{}", "r".repeat(200)));
        for (Snapshot snap : both(s, TO_OPUS)) {
            Truncation manifest = snap.truncations().stream()
                    .filter(t -> t.kind() == TruncationKind.TRAIL_MANIFEST && t.seqFrom() != null
                            && !t.seqFrom().equals(t.seqTo())).findFirst().orElseThrow();
            assertThat(snap.retention().manifestUnlisted()).isPositive();
            long manifested = snap.retention().manifestSeqs().size() + snap.retention().manifestUnlisted();
            assertThat(manifest.count()).isEqualTo(manifested);
            // trail-bearing turns are seqs 2..41; the manifested ones are the oldest `manifested` of them
            assertThat(manifest.seqTo()).isEqualTo(2 + manifested - 1);
            assertThat(manifest.seqFrom()).isLessThanOrEqualTo(2L);
            assertThat(manifest.seqTo() - manifest.seqFrom() + 1).isGreaterThanOrEqualTo(manifest.count());
        }
    }

    @Test
    void shouldStartTheManifestsRangeAtItsOldestEntryWhenItListsThemAll() {
        Sessions s = Sessions.create().policy(Policy.builder().inlineTrailBytes(1_000).build())
                .user("task").say("qwen", "plan");
        for (int i = 0; i < 10; i++) s.act("qwen", "step " + i, ok("c" + i, "read_file", "{}", "r".repeat(300)));
        Snapshot snap = s.render(TO_OPUS);
        assertThat(snap.retention().manifestUnlisted()).isZero();
        Truncation manifest = snap.truncations().stream().filter(t -> t.kind() == TruncationKind.TRAIL_MANIFEST)
                .filter(t -> t.marker().startsWith("(tool activity of")).findFirst().orElseThrow();
        List<Long> seqs = snap.retention().manifestSeqs();
        assertThat(manifest.seqFrom()).isEqualTo(seqs.get(seqs.size() - 1));
        assertThat(manifest.seqTo()).isEqualTo(seqs.get(0));
    }

    // ---- 2. the digest wherever it fits (R5)

    @Test
    void shouldUseTheDigestOfExactlyTheOmittedTurnsWhenItFitsASmallBudget() {
        Sessions s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(6_000).build())
                .user("task").say("qwen", "plan");
        for (int i = 0; i < 15; i++) s.say("qwen", "note " + i + " " + "n".repeat(292));
        s.say("qwen", "newest " + "z".repeat(2_500));
        for (Snapshot snap : both(s, TO_OPUS)) {
            Truncation middle = snap.truncations().stream()
                    .filter(t -> t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED).findFirst().orElseThrow();
            assertThat(snap.truncations()).noneMatch(t -> t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_DROPPED);
            assertThat(snap.stats().messageChars()).isLessThanOrEqualTo(6_000);
            // each kept note costs about 300 characters and its digest line about 150: the tail keeps what fits
            assertThat(middle.seqFrom()).isEqualTo(2L);
            long kept = 15 - middle.count();
            assertThat(snap.messages()).extracting(Message::content).contains("note 14 " + "n".repeat(292));
            // one more kept note would not fit: 300 characters more, one digest line less
            assertThat(snap.stats().messageChars() + 300 - 140).isGreaterThan(6_000);
            assertThat(kept).isPositive();
        }
    }

    @Test
    void shouldKeepALongerTailOfShortTurnsWhenThatMakesTheDigestFit() {
        // many short turns after a long one: each short turn kept in the tail costs less than its digest line, so
        // the longest tail leaves only the long turn to the digest; reserving the digest's whole budget first left
        // 30 short turns out too, whose lines did not fit that budget, and gave the bare marker
        Sessions s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(2_000).digestBudgetChars(600).build())
                .user("task").say("qwen", "plan").say("qwen", "long " + "l".repeat(1_000));
        for (int i = 0; i < 230; i++) s.say("qwen", "ok " + (100 + i));
        s.say("qwen", "newest " + "z".repeat(193));
        for (Snapshot snap : both(s, TO_OPUS)) {
            Truncation middle = snap.truncations().stream()
                    .filter(t -> t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED).findFirst().orElseThrow();
            assertThat(middle.marker()).isEqualTo("(earlier conversation summarized — 1 turn, seq 2, one line per turn;"
                    + " full history in the session log)");
            assertThat(snap.messages()).extracting(Message::content).contains("ok 100", "ok 329");
            assertThat(snap.stats().messageChars()).isLessThanOrEqualTo(2_000);
        }
    }

    // ---- 5. texts

    @Test
    void shouldWriteAOneTurnRangeAsOneSeq() {
        Policy p = Policy.defaults();
        SessionState st = SessionState.empty();
        st.offerTurn(Turn.of(0, "u", Role.USER, "task"), p, 0);
        st.offerTurn(Turn.of(1, "qwen", Role.ASSISTANT, "plan"), p, 0);
        st.offerTurn(Turn.of(3, "qwen", Role.ASSISTANT, "after the gap"), p, 0);
        st.onWallClock(p.gapWaitMillis(), p);
        Snapshot snap = ContextEngine.render("acme", "s1", st,
                new dev.baton.engine.state.ReadyHandoff(TO_OPUS, 0, null), p);
        assertThat(all(snap)).contains("(1 turn missing — seq 2 was never received; the session log may have them)")
                .doesNotContain("seq 2–2");

        Sessions s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(2_000).digestBudgetChars(0).build())
                .user("task").say("qwen", "plan").say("qwen", "old " + "o".repeat(900)).say("qwen", "new " + "n".repeat(1_500));
        Snapshot trimmed = s.render(TO_OPUS);
        assertThat(trimmed.truncations()).extracting(Truncation::marker)
                .contains("(earlier conversation omitted — 1 turn, seq 2; full history in the session log)");
    }
}
