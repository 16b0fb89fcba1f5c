package dev.baton.engine.state;

/**
 * One entry of the call ledger: every call of one tool with the same canonical arguments (their SHA-256), counted by
 * status, and the newest of them in full (seq, agent, call id, status, result hash and size). Stored as one
 * {@link EntryKind#LEDGER} entry keyed by {@link #ordinal}.
 */
public final class CallGroup {
    /** The entry's number: the order in which groups were created (1, 2, …); never re-used in a session. */
    long ordinal;
    /**
     * Where the group is stored: 0 under {@link EntryKind#LEDGER} and its ordinal (a group created with room in the
     * ledger); n &gt; 0 under {@link EntryKind#LEDGER_SLOT} n, the place of the group it replaced when the ledger was
     * full (the slot of that group, or its ordinal when it had none). Never changes while the group is kept.
     */
    long slot;
    /**
     * The ledger's counters right after this group's newest call (its {@link #lastCall} being the call counter then):
     * stored with a LEDGER_SLOT group, and the ledger's own counters while this group is the newest.
     */
    long nextOrdinalThen;
    long droppedEntriesThen;
    long droppedCallsThen;
    /** The ledger's call counter at this group's newest call: the newest group has the largest. */
    long lastCall;
    String tool;
    String argumentsSha256;
    long ok;
    long error;
    long cleared;
    long unanswered;
    /** Seq of the oldest call of the group the ledger saw. */
    long firstSeq;
    // The newest call
    long seq;
    String agent;
    String callId;
    CallStatus status;
    /** SHA-256 of the result's UTF-8; null when there is none (CLEARED, UNANSWERED). */
    String resultSha256;
    /** UTF-8 bytes of the result (0 when none). */
    long resultBytes;
    /**
     * The newest call's compact arguments, cut to {@link #ARGUMENTS_EXCERPT_CHARS}, kept only for a tool the policy
     * named side-effecting when the call was applied (the brick lists them); null otherwise: hashes, not payloads.
     */
    String argumentsExcerpt;

    static final int ARGUMENTS_EXCERPT_CHARS = 120;

    public long ordinal() { return ordinal; }
    public String tool() { return tool; }
    public String argumentsSha256() { return argumentsSha256; }
    public long count() { return ok + error + cleared + unanswered; }
    public long ok() { return ok; }
    public long error() { return error; }
    public long cleared() { return cleared; }
    public long unanswered() { return unanswered; }
    public long firstSeq() { return firstSeq; }
    public long seq() { return seq; }
    public String agent() { return agent; }
    public String callId() { return callId; }
    public CallStatus status() { return status; }
    public String resultSha256() { return resultSha256; }
    public long resultBytes() { return resultBytes; }
    public String argumentsExcerpt() { return argumentsExcerpt; }

    void count(CallStatus s, long delta) {
        switch (s) {
            case OK -> ok += delta;
            case ERROR -> error += delta;
            case CLEARED -> cleared += delta;
            case UNANSWERED -> unanswered += delta;
        }
    }
}
