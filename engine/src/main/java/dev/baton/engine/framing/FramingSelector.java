package dev.baton.engine.framing;

import dev.baton.engine.model.Handoff;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Framing;
import dev.baton.engine.snapshot.FramingKind;
import dev.baton.engine.state.SessionState;

/**
 * R7 — framing keyed to session shape. OWNER_FROM_START when no agent other than the receiver produced an ASSISTANT
 * turn or tool activity (TOOL turns count), the brief is empty and there is no previous owner ({@code from_agent}
 * null): the prompt says the conversation is the receiver's own and attributes nothing to another agent. Otherwise
 * CONTINUITY: the receiver has the complete conversation including tool activity and continues as the owner, without
 * recapping. Neither primes a reviewer. State needs only the first agent that acted and whether another one did.
 */
public final class FramingSelector {
    private FramingSelector() {
    }

    public static Framing select(SessionState state, Handoff handoff, Policy policy) {
        String receiver = handoff.toAgent();
        boolean onlyReceiverActed = state.firstActor() == null
                || (state.firstActor().equals(receiver) && !state.anotherActorActed());
        boolean owner = onlyReceiverActed && handoff.brief() == null && handoff.fromAgent() == null;
        FramingKind kind = owner ? FramingKind.OWNER_FROM_START : FramingKind.CONTINUITY;
        String template = owner ? policy.ownerFramingPrompt() : policy.continuityFramingPrompt();
        return new Framing(kind, template.replace("{agent}", receiver));
    }
}
