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
     * reserves what a render cache may hold for this turn beside the state ({@link #layoutMemoBytes}), which a state
     * that was never rendered does not use.
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
            weight = n + layoutMemoBytes();
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
     * What a render cache's layout of this turn (held beside the state, {@code LayoutCache}) and
     * {@link #digestLine()} hold, reserved up front so that the weight stays fixed while the layout comes and goes:
     * the layout, per segment its objects and what it shows, and the digest line. A text
     * segment shows the turn's own string; a SYSTEM turn's escaped text and a step's narration are strings of their
     * own. Results are not reserved ({@link #narrationBytes}). Measured after a first LOCAL render (class histogram
     * after a full GC, ten 1,000-turn states; benchmarks/README.md, "Render per hand-off, third pass"): the memos took
     * 0.37 MB per state where this reserves 0.55 MB (size 0.1), 0.27 MB where it reserves 0.18 MB (size 1.0).
     */
    long layoutMemoBytes() {
        // the digest line: at most an excerpt, the agent and the tool names, with its brackets
        long n = LAYOUT_MEMO_OVERHEAD_BYTES + 40 + DigestLine.EXCERPT_CHARS + 24 + length(agent);
        for (String name : toolNames) n += length(name) + 2;
        if (text != null && !text.isEmpty()) n += SEGMENT_OVERHEAD_BYTES;
        if (role == Role.SYSTEM) n += heapBytes(text);
        if (trail != null) {
            for (ToolStep s : trail) n += SEGMENT_OVERHEAD_BYTES + narrationBytes(s.tool(), s.arguments());
        }
        if (calls != null) {
            for (LegacyCall c : calls) n += SEGMENT_OVERHEAD_BYTES + narrationBytes(c.tool, c.arguments);
        }
        if (role == Role.TOOL) {
            n += SEGMENT_OVERHEAD_BYTES + (answers == null ? narrationBytes(null, null)
                    : narrationBytes(answers.tool(), answers.arguments()));
        }
        return n;
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }

    /**
     * A narration's heap bytes, less its result: one string, its call line around the tool and arguments. The results
     * a state's memos show add up to at most about what its transcripts show (the transcript budget): a result is
     * shown, and its narration built, only when its step is in a transcript, and a step's trail is dropped when it
     * goes to the manifest. Not reserved per turn: measured with the results, reserving them made the weight 3 to 5
     * times the heap the memos take (1,000-turn sessions, sizes 0.1 and 1.0).
     */
    private long narrationBytes(String tool, String arguments) {
        return 40 + 48 + chars(agent) + chars(tool) + chars(arguments);
    }

    /** The bytes of a string's characters within {@link #heapBytes} (one or two per char), 0 for null. */
    private static long chars(String s) {
        return s == null ? 0 : heapBytes(s) - 40;
    }

    /** The memo object and its list. */
    static final int LAYOUT_MEMO_OVERHEAD_BYTES = 64;
    /** A segment with its step view and datum, and its list slot. */
    static final int SEGMENT_OVERHEAD_BYTES = 150;

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
