package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * R5 — "The transcript trim replaces drop-oldest with head+tail: the original request + first plan and the recent
 * turns survive at message-segment boundaries (a tool call is never split from its result), the middle is
 * summarized or dropped with a marker" (ADR 0093, B).
 */
class R5HeadTailTrimTest {
    private static final Handoff TO_OPUS = new Handoff("h", "qwen", "opus", Target.LOCAL, null, null, null);

    private static Sessions longSession(int turns, int chars) {
        Sessions s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(10_000).build())
                .user("TASK: make the build green").say("qwen", "PLAN: read, fix, test");
        for (int i = 0; i < turns; i++) s.say("qwen", "progress " + i + " " + "z".repeat(chars));
        return s;
    }

    @Test
    void shouldKeepTheTaskAndFirstPlanAndTheNewestTurnsWithADigestInTheMiddle() {
        Snapshot s = longSession(40, 300).render(TO_OPUS);
        List<Message> m = s.messages();
        assertThat(m.get(0)).isEqualTo(Message.user("TASK: make the build green"));
        assertThat(m.get(1)).isEqualTo(Message.assistant("qwen", "PLAN: read, fix, test"));
        assertThat(m.get(2).role()).isEqualTo("system");
        assertThat(m.get(m.size() - 1).content()).startsWith("progress 39 ");
        assertThat(s.stats().messageChars()).isLessThanOrEqualTo(10_000);
        Truncation middle = s.truncations().get(0);
        assertThat(middle.kind()).isEqualTo(TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED);
        // Every omitted turn has one digest line; the first kept tail turn follows the last omitted one.
        assertThat(m.get(2).content().lines().count()).isEqualTo(1 + middle.count());
        assertThat(m.get(3).content()).startsWith("progress " + (middle.seqTo() - 1) + " ");
        assertThat(middle.seqFrom()).isEqualTo(2);
    }

    @Test
    void shouldDropTheMiddleWithTheContractMarkerWhenTheDigestDoesNotFit() {
        Snapshot s = longSession(400, 200).render(TO_OPUS);
        Truncation middle = s.truncations().get(0);
        assertThat(middle.kind()).isEqualTo(TruncationKind.TRANSCRIPT_MIDDLE_DROPPED);
        assertThat(middle.marker()).isEqualTo("(earlier conversation omitted — " + middle.count() + " turns, seq "
                + middle.seqFrom() + "–" + middle.seqTo() + "; full history in the session log)");
        assertThat(s.messages().get(2).content()).isEqualTo(middle.marker());
    }

    @Test
    void shouldNeverSplitAToolCallFromItsResult() {
        Sessions s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(3_000).build())
                .user("task").say("opus", "plan");
        for (int i = 0; i < 30; i++) s.act("opus", "", ok("c" + i, "read", "{}", "r".repeat(300)));
        Snapshot snap = s.render(TO_OPUS);
        List<Message> m = snap.messages();
        // The check means something only when the trim cut turns and tool calls survived it: 30 calls with their
        // 300-character results do not fit in 3,000 characters, a few of them do.
        assertThat(snap.truncations()).as("the middle was trimmed")
                .anyMatch(t -> t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED
                        || t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_DROPPED);
        assertThat(m.stream().filter(x -> !x.toolCalls().isEmpty()).count()).as("tool calls kept")
                .isBetween(2L, 29L);
        assertThat(m.stream().filter(x -> x.role().equals("tool")).count()).as("tool results kept")
                .isEqualTo(m.stream().mapToLong(x -> x.toolCalls().size()).sum());
        for (int i = 0; i < m.size(); i++) {
            if (!m.get(i).toolCalls().isEmpty()) {
                for (int k = 0; k < m.get(i).toolCalls().size(); k++) {
                    assertThat(m.get(i + 1 + k).toolCallId()).isEqualTo(m.get(i).toolCalls().get(k).callId());
                }
            }
            if (m.get(i).role().equals("tool")) {
                String id = m.get(i).toolCallId();
                assertThat(m.subList(0, i)).anyMatch(p -> p.toolCalls().stream().anyMatch(c -> c.callId().equals(id)));
            }
        }
    }

    @Test
    void shouldCutTheNewestSegmentAroundAMarkerWhenItAloneDoesNotFit() {
        String huge = "HEAD" + "m".repeat(50_000) + "TAIL";
        Snapshot s = Sessions.create().user("task").say("qwen", "plan").say("qwen", "middle").say("qwen", huge)
                .render(new Handoff("h", "qwen", "opus", Target.LOCAL, null, null, 5_000));
        Message last = s.messages().get(s.messages().size() - 1);
        assertThat(last.content()).startsWith("HEAD").endsWith("TAIL").contains("characters cut here");
        assertThat(s.stats().messageChars()).isLessThanOrEqualTo(5_000);
        assertThat(s.truncations()).anyMatch(t -> t.kind() == TruncationKind.SEGMENT_TRIMMED && t.seqFrom() == 3);
    }

    @Test
    void shouldCutArgumentsOnlyInsideTheirLongestStringSoTheyStayAJsonObject() {
        String args = "{\"path\":\"a.txt\",\"content\":\"" + "c".repeat(20_000) + "\"}";
        Snapshot s = Sessions.create().user("task").say("qwen", "plan").say("qwen", "x")
                .act("opus", "", ok("c1", "write_file", args, "written"))
                .render(new Handoff("h", "qwen", "opus", Target.LOCAL, null, null, 3_000));
        Message call = s.messages().stream().filter(m -> !m.toolCalls().isEmpty()).findFirst().orElseThrow();
        String cut = call.toolCalls().get(0).arguments();
        assertThat(cut).startsWith("{\"path\":\"a.txt\",\"content\":\"ccc").endsWith("ccc\"}").contains("characters cut");
        assertThat(dev.baton.engine.model.CompactJson.isCompactObject(cut)).isTrue();
        assertThat(s.stats().messageChars()).isLessThanOrEqualTo(3_000);
    }

    @Test
    void shouldCountATurnWithAnyOmittedSegmentAsOmitted() {
        Sessions s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(2_000).digestBudgetChars(0).build())
                .user("task").say("qwen", "plan").say("qwen", "older");
        s.act("qwen", "tail text", ok("c1", "a", "{}", "1".repeat(960)), ok("c2", "b", "{}", "2".repeat(960)));
        Snapshot snap = s.render(TO_OPUS);
        Truncation middle = snap.truncations().stream().filter(t -> t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_DROPPED)
                .findFirst().orElseThrow();
        // The first step of seq 3 does not fit: seq 3 counts as omitted although its second step and text are kept.
        assertThat(middle.seqTo()).isEqualTo(3);
        assertThat(middle.count()).isEqualTo(2);
        assertThat(snap.messages().get(snap.messages().size() - 1).content()).isEqualTo("tail text");
    }

    @Test
    void shouldKeepALateFirstPlanInSeqOrderInsideTheTail() {
        Snapshot s = Sessions.create().policy(Policy.builder().transcriptBudgetChars(2_000).build())
                .user("first question").user("x".repeat(3_000)).user("second question").say("qwen", "the answer")
                .render(TO_OPUS);
        assertThat(s.messages()).extracting(Message::content).endsWith("second question", "the answer");
        assertThat(s.messages().get(0)).isEqualTo(Message.user("first question"));
    }
}
