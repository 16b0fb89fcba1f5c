package dev.baton.engine.state;

/**
 * The kinds of per-session entries kept beside the skeleton (see {@link StateFormat}): each is one entry per item,
 * keyed by the session, the kind's byte and a number (a seq, or an ordinal for open legacy calls), so that one
 * session's entries of one kind are a contiguous range in number order.
 */
public enum EntryKind {
    /** An applied turn the engine still needs (head, window, retained trails): {@link StoredTurn}, keyed by seq. */
    TURN('T'),
    /** A turn held until the gap before it fills: the {@code Turn} as it arrived, keyed by seq. */
    HELD('H'),
    /** The digest line of a compacted body turn (R5), keyed by the turn's seq. */
    DIGEST('D'),
    /** A trail-bearing turn as the retention plan sees it (R3): {@link TrailEntry}, keyed by seq. */
    TRAIL('R'),
    /** A legacy call not yet answered, keyed by the ordinal of its registration (their order). */
    CALL('C'),
    /**
     * The print of a receiver's last LOCAL snapshot ({@code PrefixPrint}: stable prefix and trim step), keyed by an
     * ordinal that grows with every snapshot remembered (recency order).
     */
    PREFIX('P'),
    /**
     * The call ledger (added after format 3 without a new version: a kind older readers never wrote): number 0 its
     * counters, number n &gt;= 1 the group of ordinal n ({@link CallGroup}).
     */
    LEDGER('L'),
    /**
     * A call-ledger group stored in the place of a group the bound dropped (issue 22): keyed by a slot number that the
     * next group to take a dropped group's place overwrites, so that a full ledger's new group is one changelog
     * record, not a put under a new key and a tombstone of the dropped one. The value is a LEDGER group's, byte for
     * byte; only the key differs ({@link CallGroup#slot}). Newer than LEDGER: older readers refuse it.
     */
    LEDGER_SLOT('G');

    private final byte code;

    EntryKind(char code) {
        this.code = (byte) code;
    }

    /** The byte that stands for this kind in a stored key. */
    public byte code() {
        return code;
    }

    public static EntryKind ofCode(byte code) {
        for (EntryKind k : values()) if (k.code == code) return k;
        throw new IllegalArgumentException("unknown entry kind byte " + code);
    }
}
