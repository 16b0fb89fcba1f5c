package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * R1 — "the other agent's Turn.Trail is narrated into the receiving agent's history as third-person lines —
 * [&lt;name&gt; called &lt;tool&gt;(&lt;args&gt;)] / [result: …], role-safe system-role text, never first-person tool calls
 * the receiving agent never issued" (ADR 0093, A).
 */
class R1OwnershipAndNarrationTest {

    private static final Handoff TO_OPUS = new Handoff("h1", "qwen", "opus", Target.LOCAL, null, null, null);

    @Test
    void shouldNarrateAnotherAgentsTrailAsSystemLines() {
        Snapshot s = Sessions.create()
                .user("fix it")
                .act("qwen", "looked", ok("c1", "read_file", "{\"path\": \"a.txt\"}", "hello"))
                .render(TO_OPUS);
        assertThat(s.messages()).contains(Message.system("[qwen called read_file({\"path\":\"a.txt\"})]\n[result: hello]"));
        assertThat(s.messages()).allSatisfy(m -> assertThat(m.toolCalls()).isEmpty());
        assertThat(s.messages()).noneMatch(m -> m.role().equals("tool"));
    }

    @Test
    void shouldReplayTheReceiversOwnTrailNatively() {
        Snapshot s = Sessions.create()
                .user("fix it")
                .act("opus", "looked", ok("c1", "read_file", "{\"path\":\"a.txt\"}", "hello"),
                        ok("c2", "grep", "{\"q\":\"x\"}", "none"))
                .render(TO_OPUS);
        List<Message> m = s.messages();
        assertThat(m.get(1).role()).isEqualTo("assistant");
        assertThat(m.get(1).toolCalls()).extracting(c -> c.callId()).containsExactly("c1", "c2");
        assertThat(m.get(2)).isEqualTo(new Message("tool", null, "hello", List.of(), "c1"));
        assertThat(m.get(3)).isEqualTo(new Message("tool", null, "none", List.of(), "c2"));
        assertThat(m.get(4)).isEqualTo(Message.assistant(null, "looked"));
    }

    @Test
    void shouldNameAnotherAgentsTextAndNotTheReceivers() {
        Snapshot s = Sessions.create().user("task").say("qwen", "plan A").say("opus", "plan B").render(TO_OPUS);
        assertThat(s.messages()).containsSubsequence(Message.assistant("qwen", "plan A"), Message.assistant(null, "plan B"));
    }

    @Test
    void shouldSayErrorClearedAndNoResult() {
        Snapshot s = Sessions.create()
                .user("task")
                .act("qwen", "", error("c1", "run_tests", "{}", "boom"), cleared("c2", "read_file", "{\"p\":1}"))
                .legacyCall("qwen", "", call("c3", "grep", "{}"))
                .render(TO_OPUS);
        assertThat(s.messages()).extracting(Message::content).contains(
                "[qwen called run_tests({})]\n[error: boom]",
                "[qwen called read_file({\"p\":1})]\n[result cleared at capture time]",
                "[qwen called grep({})]\n[no result recorded]");
    }

    @Test
    void shouldNarrateALegacyStepAtItsCallingTurnWithTheAnsweringResult() {
        Snapshot s = Sessions.create()
                .user("task")
                .legacyCall("qwen", "checking", call("c1", "grep", "{\"q\":\"TODO\"}"))
                .legacyResult("qwen", "c1", "3 matches")
                .say("qwen", "done")
                .render(TO_OPUS);
        assertThat(s.messages()).containsExactly(
                Message.user("task"),
                Message.system("[qwen called grep({\"q\":\"TODO\"})]\n[result: 3 matches]"),
                Message.assistant("qwen", "checking"),
                Message.assistant("qwen", "done"));
    }

    @Test
    void shouldNarrateAToolTurnWhoseCallIsUnknownWithToolUnknown() {
        Snapshot s = Sessions.create().user("task").say("qwen", "hm").legacyResult("qwen", "nope", "orphan result")
                .render(TO_OPUS);
        assertThat(s.messages()).contains(Message.system("[qwen called unknown({})]\n[result: orphan result]"));
    }

    @Test
    void shouldNarrateTheAnswerToACallForgottenPastTheOpenCallBoundWithToolUnknown() {
        // State bound (CONTRACT "Bounded state"): at most maxOpenLegacyCalls unanswered calls are remembered, the
        // oldest forgotten first; an answer to a forgotten call is narrated like any TOOL turn whose call is unknown.
        Sessions session = Sessions.create().policy(Policy.defaults().toBuilder().maxOpenLegacyCalls(2).build())
                .user("task").say("qwen", "looking")
                .legacyCall("qwen", "", call("c1", "grep", "{}"), call("c2", "ls", "{}"), call("c3", "cat", "{}"))
                .legacyResult("qwen", "c1", "r1").legacyResult("qwen", "c3", "r3");
        Snapshot s = session.render(TO_OPUS);
        assertThat(s.messages()).contains(Message.system("[qwen called unknown({})]\n[result: r1]"));
        assertThat(s.messages()).anyMatch(m -> m.content().contains("cat({})") && m.content().contains("r3"));
        // The forgotten call itself is still narrated where its turn is, as a call whose result was not recorded.
        assertThat(s.messages()).contains(Message.system("[qwen called grep({})]\n[no result recorded]"));
        // The uncompacted history (no bounds: the reference of CompactionIsInvisibleProperties) still knows c1.
        Snapshot full = session.render(session.fullState(), TO_OPUS);
        assertThat(full.messages()).anyMatch(m -> m.content().contains("grep({})") && m.content().contains("r1"));
    }

    @Test
    void shouldNeverShowTheReceiverAFirstPersonCallItDidNotIssue() {
        Snapshot s = Sessions.create().user("task").say("opus", "hm").legacyResult("opus", "ghost", "orphan")
                .render(TO_OPUS);
        // The receiver's own TOOL turn whose call is unknown is still narrated: no native call was issued.
        assertThat(s.messages()).noneMatch(m -> !m.toolCalls().isEmpty() || m.role().equals("tool"));
    }

    @Test
    void shouldKeepArgumentsAsReceivedButCompact() {
        Snapshot s = Sessions.create().user("task")
                .act("qwen", "", ok("c1", "calc", "{ \"b\": 1.0, \"a\": 1e5, \"s\": \"héllo \\u00e9\" }", "ok"))
                .render(TO_OPUS);
        assertThat(s.messages().get(1).content())
                .startsWith("[qwen called calc({\"b\":1.0,\"a\":1e5,\"s\":\"héllo \\u00e9\"})]");
    }
}
