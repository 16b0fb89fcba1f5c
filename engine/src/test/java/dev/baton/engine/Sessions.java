package dev.baton.engine;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;

import java.util.ArrayList;
import java.util.List;

/** Test fixture: builds sessions turn by turn and renders hand-offs through the engine. */
public final class Sessions {
    public final List<Turn> turns = new ArrayList<>();
    private long seq;
    public Policy policy = Policy.defaults();

    public static Sessions create() {
        return new Sessions();
    }

    public Sessions policy(Policy p) {
        this.policy = p;
        return this;
    }

    public Sessions user(String text) {
        turns.add(Turn.of(seq++, "user", Role.USER, text));
        return this;
    }

    public Sessions system(String text) {
        turns.add(Turn.of(seq++, "platform", Role.SYSTEM, text));
        return this;
    }

    public Sessions say(String agent, String text) {
        turns.add(Turn.of(seq++, agent, Role.ASSISTANT, text));
        return this;
    }

    /** An ASSISTANT turn with a trail; steps given as tool, arguments, result triples. */
    public Sessions act(String agent, String text, ToolStep... steps) {
        turns.add(new Turn(seq++, agent, Role.ASSISTANT, text, List.of(steps), List.of(), null, null, null));
        return this;
    }

    /** A legacy ASSISTANT turn with bare tool calls. */
    public Sessions legacyCall(String agent, String text, ToolCall... calls) {
        turns.add(new Turn(seq++, agent, Role.ASSISTANT, text, List.of(), List.of(calls), null, null, null));
        return this;
    }

    /** A legacy TOOL turn answering a call. */
    public Sessions legacyResult(String agent, String callId, String result) {
        turns.add(new Turn(seq++, agent, Role.TOOL, result, List.of(), List.of(), callId, null, null));
        return this;
    }

    public static ToolStep ok(String callId, String tool, String args, String result) {
        return new ToolStep(callId, tool, args, result, StepStatus.OK);
    }

    public static ToolStep error(String callId, String tool, String args, String result) {
        return new ToolStep(callId, tool, args, result, StepStatus.ERROR);
    }

    public static ToolStep cleared(String callId, String tool, String args) {
        return new ToolStep(callId, tool, args, null, StepStatus.CLEARED);
    }

    public static ToolCall call(String callId, String tool, String args) {
        return new ToolCall(callId, tool, args);
    }

    public long nextSeq() {
        return seq;
    }

    /** Applies every turn to a fresh (compacting) state. */
    public SessionState state() {
        return applyAll(SessionState.empty());
    }

    /** Applies every turn to a state that keeps the full history. */
    public SessionState fullState() {
        return applyAll(SessionState.uncompacted());
    }

    private SessionState applyAll(SessionState s) {
        for (Turn t : turns) s.offerTurn(t, policy, 0L);
        return s;
    }

    public static Handoff handoff(String to) {
        return new Handoff("h1", "qwen", to, Target.LOCAL, null, null, null);
    }

    public Snapshot render(Handoff h) {
        return render(state(), h);
    }

    public Snapshot render(SessionState s, Handoff h) {
        return ContextEngine.render("acme", "s1", s, new ReadyHandoff(h, 1_000L, null), policy);
    }
}
