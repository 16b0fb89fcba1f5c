package dev.baton.engine.model;

/**
 * A request for a context snapshot (docs/contract.md, "Hand-offs").
 *
 * @param handoffId          idempotency key within the session
 * @param fromAgent          the previous owner, or null when there was none
 * @param toAgent            the receiver
 * @param target             LOCAL (transcript + brick) or CLAUDE_CLI (brick only)
 * @param brief              optional brief; empty counts as none
 * @param asOfSeq            optional: wait until every turn up to this seq is applied
 * @param messageBudgetChars optional: lowers (never raises) the tenant's transcript budget
 */
public record Handoff(String handoffId, String fromAgent, String toAgent, Target target, String brief,
                      Long asOfSeq, Integer messageBudgetChars) {
    public Handoff {
        if (target == null) target = Target.LOCAL;
        if (brief != null && brief.isEmpty()) brief = null;
    }
}
