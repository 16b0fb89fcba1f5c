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
    /**
     * Not stored (no part of the stored format; a decoded turn starts at 0): how many times the state changed this
     * turn after adding it (a legacy result arrived, the trail went to the manifest). Whatever is derived from the
     * turn and kept outside the state — a render cache's layout — is valid only while this count is the one it was
     * derived at.
     */
    private int changes;
    /** Not stored: {@link DigestLine#of} of this turn once asked ({@link #digestLine()}). */
    private String digestLine;

    /**
     * Approximate Java heap bytes of this turn, fixed at the first call (the decoded-state cache's weight): every
     * string at its heap size ({@link #heapBytes}), plus the objects around them. Calibrated against heap measured
     * after a full GC (benchmarks' {@code LiveSessionsHarness}, docs/capacity.md): within about 10 % for sessions of
     * 2 to 200 turns; counting only the UTF-8 text would leave the heap 1.3 to 2.8 times the weight. It also
     * reserves the digest line the turn keeps once asked ({@link #digestLineBytes}). What a render cache beside the
     * state holds for the turn ({@code LayoutCache}) is not the state's and is not counted: a weight that reserved it
     * up front made the decoded-state cache evict sessions it had room for (docs/capacity.md counts it apart).
     */
    private long weight = -1;

    /** The turn object, its lists and the transcript's references to it. */
    static final int TURN_OVERHEAD_BYTES = 200;
    /** A trail step or legacy call object and its list slot, besides its strings. */
    static final int STEP_OVERHEAD_BYTES = 48;

    public StoredTurn() {
    }

    /** How many times the state changed this turn after adding it (not stored; see the field). */
    public int changes() {
        return changes;
    }

    /** Called by the state whenever it changes this turn after adding it. */
    void changed() {
        changes++;
    }

    long weight() {
        if (weight < 0) {
            long n = TURN_OVERHEAD_BYTES + heapBytes(text) + heapBytes(agent) + heapBytes(toolCallId);
            for (String name : toolNames) n += heapBytes(name) + 8;
            if (trail != null) {
                for (ToolStep s : trail) {
                    n += STEP_OVERHEAD_BYTES + heapBytes(s.callId()) + heapBytes(s.tool()) + heapBytes(s.arguments())
                            + heapBytes(s.result());
                }
            }
            if (calls != null) {
                for (LegacyCall c : calls) {
                    n += STEP_OVERHEAD_BYTES + heapBytes(c.callId) + heapBytes(c.tool) + heapBytes(c.arguments)
                            + heapBytes(c.result);
                }
            }
            if (answers != null) {
                n += STEP_OVERHEAD_BYTES + heapBytes(answers.callingAgent()) + heapBytes(answers.callId())
                        + heapBytes(answers.tool()) + heapBytes(answers.arguments());
            }
            weight = n + digestLineBytes();
        }
        return weight;
    }

    /**
     * {@link DigestLine#of} this turn, built on first use and kept: it depends on the turn's seq, agent, role, text
     * and tool names, none of which changes, and every hand-off that trims the transcript asks for the line of each
     * body turn it omits. Counted in {@link #weight()}.
     */
    public String digestLine() {
        String d = digestLine;
        if (d == null) {
            d = DigestLine.of(this);
            digestLine = d;
        }
        return d;
    }

    /**
     * What {@link #digestLine()} holds once asked (the line is kept on the turn): at most an excerpt, the agent and
     * the tool names, with its brackets. Reserved up front so that the weight stays fixed while the line comes.
     */
    long digestLineBytes() {
        long n = DIGEST_LINE_OVERHEAD_BYTES + 40 + DigestLine.EXCERPT_CHARS + 24 + length(agent);
        for (String name : toolNames) n += length(name) + 2;
        return n;
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }

    /** The line's string object and its array's header. */
    static final int DIGEST_LINE_OVERHEAD_BYTES = 64;

    /**
     * Heap bytes of a string on a 64-bit JVM with compact strings and compressed pointers: the String object and its
     * array header (40 bytes), one byte per char when every char is Latin-1, else two, rounded up to 8.
     */
    public static long heapBytes(String s) {
        if (s == null) return 0;
        int n = s.length();
        boolean latin1 = true;
        for (int i = 0; i < n && latin1; i++) latin1 = s.charAt(i) < 0x100;
        long chars = latin1 ? n : 2L * n;
        return 40 + ((chars + 7) & ~7L);
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
