package dev.baton.engine.narration;

/**
 * One tool step as rendered: who called which tool with which (compact) arguments, and the outcome.
 * Built from a trail-era {@code ToolStep}, or from a legacy call plus the TOOL turn that answers it.
 *
 * @param seq    the seq of the turn the step belongs to (the calling turn, or the answering TOOL turn)
 * @param agent  the agent that called the tool
 * @param callId the call id (null for a TOOL turn whose call is unknown)
 * @param result the result or error text (ignored for CLEARED and NO_RESULT)
 */
public record StepView(long seq, String agent, String callId, String tool, String arguments, Outcome outcome,
                       Datum result) {

    /** How the step ended, as far as the session history says. */
    public enum Outcome { RESULT, ERROR, CLEARED, NO_RESULT }

    public StepView withResult(Datum r) {
        return new StepView(seq, agent, callId, tool, arguments, outcome, r);
    }

    public StepView withArguments(String args) {
        return new StepView(seq, agent, callId, tool, args, outcome, result);
    }
}
