package dev.baton.engine.markers;

/**
 * R8 — honest markers: the exact text of every marker line Baton writes. Each starts with {@code (}, {@code [} or
 * {@code …} (R2) and reads naturally ("1 turn", "2 turns").
 */
public final class Markers {
    private Markers() {
    }

    /** "1 turn", "2 turns". */
    public static String count(long n, String singular, String plural) {
        return n + " " + (n == 1 ? singular : plural);
    }

    public static String turns(long n) {
        return count(n, "turn", "turns");
    }

    public static String characters(long n) {
        return count(n, "character", "characters");
    }

    /** A seq range as markers write it: {@code seq 3–7}, and {@code seq 3} for a range of one seq (R5). */
    public static String seqs(long from, long to) {
        return from == to ? "seq " + from : "seq " + from + "–" + to;
    }

    /**
     * Receipts: the brick line that reports how the session's previous escalation ended, e.g.
     * {@code [previous hand-off: escalated to claude-opus at seq 41: failed — handed back]}. {@code receiver} is the
     * receiver's model (or its agent name), a name without brackets or line breaks; {@code outcome} the words for the
     * result.
     */
    public static String previousHandoff(String receiver, long asOfSeq, String outcome) {
        return "[previous hand-off: escalated to " + receiver + " at seq " + asOfSeq + ": " + outcome + "]";
    }

    /** R5: the middle when its digest does not fit. */
    public static String middleDropped(long n, long from, long to) {
        return "(earlier conversation omitted — " + turns(n) + ", " + seqs(from, to)
                + "; full history in the session log)";
    }

    /** R5: the first line of the middle digest. */
    public static String middleSummarized(long n, long from, long to) {
        return "(earlier conversation summarized — " + turns(n) + ", " + seqs(from, to)
                + ", one line per turn; full history in the session log)";
    }

    /** §2: a range of seqs that never arrived. */
    public static String turnsMissing(long n, long from, long to) {
        return "(" + turns(n) + " missing — " + seqs(from, to) + (n == 1 ? " was" : " were")
                + " never received; the session log may have them)";
    }

    /** R6: all missing ranges on one brick line, when a small brick cannot hold one line per range. */
    public static String turnsMissingInRanges(long n, long ranges, long from, long to) {
        return "(" + turns(n) + " missing in " + count(ranges, "range", "ranges") + " between seq " + from + " and " + to
                + "; the session log may have them)";
    }

    /** §3: the entry that aggregates the older missing ranges. */
    public static String olderTurnsMissing(long n, long from, long to) {
        return "(" + turns(n) + " missing in older ranges between seq " + from + " and " + to
                + "; the session log may have them)";
    }

    /** R3: first line of the manifest. */
    public static String manifestHeader(long n) {
        return "(tool activity of " + count(n, "older turn", "older turns")
                + " is listed here, not shown; full detail in the session history)";
    }

    /** R3: last line of the manifest. */
    public static String manifestFooter(long unlisted) {
        return "(" + count(unlisted, "older trail-bearing turn", "older trail-bearing turns") + " not listed)";
    }

    /** R5: the marker line inside a segment cut to fit. */
    public static String segmentTrimmed(long cut) {
        return "… (" + characters(cut) + " cut here; full text in the session history) …";
    }

    /** R5: arguments cut inside their longest string value (kept on one line, inside the JSON string). */
    public static String argumentsTrimmed(long cut) {
        return "… (" + characters(cut) + " cut) …";
    }

    /** R6: after a brick result cut at the per-result cap. Exact text from the contract. */
    public static final String BRICK_RESULT_TRUNCATED = "… (truncated — full result in the session history)";

    /** R6: turns that do not fit the brick. Exact text from the contract. */
    public static String brickActivityOmitted(long n) {
        return "(earlier activity omitted — " + turns(n) + ")";
    }

    /** R6: inside a single brick turn that alone exceeds the budget. */
    public static String brickTurnTrimmed(long cut) {
        return "… (" + characters(cut) + " of this turn cut; full turn in the session history) …";
    }

    /** R6: a manifested turn's tool activity, as the brick mentions it. */
    public static String brickTrailNotShown(long seq, String tools) {
        return "(seq " + seq + " tool activity not shown: " + tools + "; full detail in the session history)";
    }

    /** The brick's list of side-effecting calls already made (docs/rendering.md, "Call ledger"): its heading. */
    public static final String BRICK_DONE_HEADING =
            "[done — side-effecting calls already made, newest first; do not repeat them]";

    /** The brick's line for side-effecting calls that did not fit its list. */
    public static String brickDoneOmitted(long n) {
        return "(" + n + (n == 1 ? " older side-effecting call" : " older side-effecting calls")
                + " not listed — see the snapshot's call_ledger)";
    }
}
