package dev.baton.engine.model;

import java.util.List;

/**
 * One entry of a session's history (docs/contract.md, "Turns"). Immutable.
 *
 * @param seq        position in the session, from 0
 * @param agent      the agent that produced (or, for USER/SYSTEM turns, recorded) the turn
 * @param role       USER, ASSISTANT, SYSTEM or TOOL
 * @param text       what was said; never null (empty when nothing)
 * @param trail      tool activity of a trail-era ASSISTANT turn, in order
 * @param toolCalls  legacy bare tool calls of an ASSISTANT turn
 * @param toolCallId for a legacy TOOL turn: the call it answers (null when absent)
 * @param provider   optional provider label (not rendered)
 * @param model      optional model label (not rendered)
 */
public record Turn(long seq, String agent, Role role, String text, List<ToolStep> trail, List<ToolCall> toolCalls,
                   String toolCallId, String provider, String model) {
    public Turn {
        text = text == null ? "" : text;
        trail = trail == null ? List.of() : List.copyOf(trail);
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    /** A turn with text only. */
    public static Turn of(long seq, String agent, Role role, String text) {
        return new Turn(seq, agent, role, text, List.of(), List.of(), null, null, null);
    }

    /** True for an ASSISTANT turn with tool activity (a trail or legacy calls): R3 plans these. */
    public boolean trailBearing() {
        return role == Role.ASSISTANT && (!trail.isEmpty() || !toolCalls.isEmpty());
    }
}
