package dev.baton.engine.state;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.ToolStep;

import java.util.ArrayList;
import java.util.List;

/**
 * A turn as kept in {@link SessionState} (one stored entry, {@link EntryKind#TURN}): the turn's own data plus what was resolved when it was applied
 * (legacy call results on the calling turn, the answered call on a TOOL turn). Trail contents are dropped once the
 * retention plan (R3) puts the turn in the manifest: from then on only its tool names are needed.
 */
public final class StoredTurn {
    public long seq;
    public String agent;
    public Role role;
    public String text;
    /** Trail-era steps; null once the trail was manifested (dropped). */
    public List<ToolStep> trail;
    /** Legacy calls of an ASSISTANT turn, with their answers; null once manifested. */
    public List<LegacyCall> calls;
    /** Distinct tool names of the trail or legacy calls, in first-use order (kept for manifest and digest). */
    public List<String> toolNames = new ArrayList<>();
    /** True when this turn has (or had) tool activity: R3 plans it. */
    public boolean trailBearing;
    /** Set once the retention plan put this turn's trail in the manifest (permanent). */
    public boolean manifested;
    /** TOOL turn: the call it answers, null when the call is unknown. */
    public ResolvedCall answers;
    /** TOOL turn: the call id it carried (may be null). */
    public String toolCallId;

    /** Approximate bytes when stored, fixed at the first call (the decoded-state cache's weight). */
    private long weight = -1;

    public StoredTurn() {
    }

    long weight() {
        if (weight < 0) {
            long n = Utf8.length(text) + 64;
            if (trail != null) {
                for (ToolStep s : trail) n += Utf8.length(s.arguments()) + Utf8.length(s.result()) + 32;
            }
            if (calls != null) for (LegacyCall c : calls) n += Utf8.length(c.arguments) + Utf8.length(c.result) + 32;
            weight = n;
        }
        return weight;
    }

    /** A legacy call and, once its TOOL turn arrived, the answer. */
    public static final class LegacyCall {
        public String callId;
        public String tool;
        public String arguments;
        /** The answering TOOL turn's text; null while unanswered. */
        public String result;
        /** seq of the answering TOOL turn, or -1. */
        public long answeredBySeq = -1;

        public LegacyCall() {
        }

        public LegacyCall(String callId, String tool, String arguments) {
            this.callId = callId;
            this.tool = tool;
            this.arguments = arguments;
        }
    }

    /** What a TOOL turn answers: the calling turn's seq and agent, the tool and its arguments. */
    public record ResolvedCall(long callingSeq, String callingAgent, String callId, String tool, String arguments) {
    }
}
