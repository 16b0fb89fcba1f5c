package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.SessionStateCodec;
import org.junit.jupiter.api.Test;

import static dev.baton.engine.Sessions.*;
import static org.assertj.core.api.Assertions.assertThat;

class SmokeTest {
    @Test
    void shouldRenderAMultiAgentSession() {
        Sessions s = Sessions.create()
                .user("Fix the flaky test in OrderServiceTest")
                .act("qwen", "I'll look at the test first.", ok("c1", "read_file", "{\"path\": \"OrderServiceTest.java\"}", "class OrderServiceTest {}"))
                .act("qwen", "Running it.", error("c2", "run_tests", "{\"filter\":\"Order*\"}", "1 failure: timeout"))
                .legacyCall("qwen", "Let me grep.", call("c3", "grep", "{\"q\":\"sleep\"}"))
                .legacyResult("qwen", "c3", "[line 12] Thread.sleep(100)")
                .say("qwen", "I am stuck.");
        Snapshot snap = s.render(new Handoff("h1", "qwen", "opus", Target.LOCAL, "Please take over", null, null));
        for (Message m : snap.messages()) System.out.println(m.role() + (m.name() == null ? "" : "(" + m.name() + ")") + ": " + m.content() + " " + m.toolCalls());
        System.out.println("BRICK:\n" + snap.brick());
        System.out.println(snap.framing());
        System.out.println(snap.truncations());
        System.out.println(snap.parity() + " " + snap.stats() + " " + snap.retention());
        Snapshot own = s.render(new Handoff("h2", null, "qwen", Target.LOCAL, null, null, null));
        for (Message m : own.messages()) System.out.println(m.role() + (m.name() == null ? "" : "(" + m.name() + ")") + ": " + m.content() + " " + m.toolCalls() + " " + m.toolCallId());
        System.out.println(own.framing() + " " + own.parity());
        assertThat(snap.messages()).isNotEmpty();
        byte[] bytes = SessionStateCodec.encode(s.state());
        assertThat(s.render(SessionStateCodec.decode(bytes), new Handoff("h1", "qwen", "opus", Target.LOCAL, "Please take over", null, null))).isEqualTo(snap);
    }
}
