package dev.baton.engine.model;

/**
 * One step of a trail-era turn's tool activity: the call and its outcome.
 *
 * @param callId    identifier of the call
 * @param tool      tool name
 * @param arguments the call's arguments, compact JSON object text (see {@link dev.baton.engine.model.CompactJson})
 * @param result    the result text, or null when none was recorded
 * @param status    OK, ERROR (result is the error text) or CLEARED (the result was cleared at capture time)
 */
public record ToolStep(String callId, String tool, String arguments, String result, StepStatus status) {
    public ToolStep {
        if (status == null) status = StepStatus.OK;
    }
}
