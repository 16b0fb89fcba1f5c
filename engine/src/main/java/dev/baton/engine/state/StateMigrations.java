package dev.baton.engine.state;

import java.util.function.Supplier;

/**
 * Brings a stored session of any version to the current one ({@link StateFormat#VERSION}), and is the one place
 * that knows which {@link StateReader} reads which version:
 * <ul>
 *   <li>version 3 (current): read as it is ({@link StateV3Reader});</li>
 *   <li>version 2: the same entries, a skeleton without the input range ({@link StateV2Reader}); the range is taken
 *       from version 2's store of its own, once, and the session's next store writes a version-3 skeleton holding
 *       it. Its entries stay version 2 until the engine next changes them (their layout did not change);</li>
 *   <li>version 1: one JSON blob per session in the skeleton store ({@link StateV1Reader}); decoded, written out at
 *       once as current entries and remembered ids, and replaced by a current skeleton when the session is stored.
 *       It had no input range either: the range is looked for in version 2's store as for version 2.</li>
 * </ul>
 * A value of any other version is refused loudly rather than misread (docs/operations.md, "Stored state").
 */
public final class StateMigrations {
    private StateMigrations() {
    }

    /** The reader of a version-2 or version-3 value (skeleton or entry); any other version is refused. */
    static StateReader readerOf(byte[] value, String what) {
        int v = StateFormat.versionOf(value);
        return switch (v) {
            case StateV3Reader.VERSION -> StateV3Reader.INSTANCE;
            case StateV2Reader.VERSION -> StateV2Reader.INSTANCE;
            default -> throw new IllegalStateException(what + " format version " + v + " is not supported here "
                    + "(expected " + StateV3Reader.VERSION + " or " + StateV2Reader.VERSION
                    + "); see docs/operations.md, \"Stored state\"");
        };
    }

    /**
     * A stored session brought to the current version: its state (journal on, {@code ids} as its hand-off id log),
     * the version it was stored in, and whether its input range came from version 2's store (the caller deletes it
     * there once the session is stored again).
     */
    public record Current(SessionState state, int storedVersion, boolean rangeFromFormerStore) {
        /**
         * True when what was stored is a version-1 blob, replaced whole by the next store: the caller cannot skip
         * that store by comparing the new skeleton with the stored value.
         */
        public boolean blobToReplace() {
            return storedVersion == StateV1Reader.VERSION;
        }
    }

    /**
     * Loads a stored session for changing it: a version-1 blob's entries are written to {@code entries} and its
     * remembered ids put into {@code ids} now; a session stored before version 3 takes its input range from
     * {@code formerRange} (the value version 2's range store holds for it, or null).
     *
     * @param skeleton the value of the session's skeleton store (a skeleton, or a version-1 blob)
     */
    public static Current load(byte[] skeleton, SessionEntries entries, HandoffIdLog ids, Supplier<byte[]> formerRange) {
        int version = StateFormat.versionOf(skeleton);
        SessionState s;
        if (version == StateV1Reader.VERSION) {
            s = StateV1Reader.read(skeleton);
            StateStorage.rememberedIds(s).forEach(ids::put);
            StateStorage.writeAll(s, entries);
            s.useHandoffIds(ids);
            s.journal();
        } else {
            s = StateStorage.load(skeleton, entries, ids);
        }
        boolean fromFormerStore = false;
        if (keepsRangeApart(skeleton)) {
            // versions 1 and 2 kept the input range in a store of its own: take it from there, once
            s.inputRange(StateV2Reader.formerRange(formerRange.get()));
            fromFormerStore = s.inputRange() != null;
        }
        return new Current(s, version, fromFormerStore);
    }

    /**
     * Reads a stored session without writing anything (interactive queries): a version-1 blob is decoded in memory;
     * a session stored before version 3 has no input range here.
     */
    public static SessionState read(byte[] skeleton, SessionEntries entries, HandoffIdLog ids) {
        if (StateFormat.versionOf(skeleton) == StateV1Reader.VERSION) return StateV1Reader.read(skeleton);
        return StateStorage.load(skeleton, entries, ids);
    }

    /** True when the session was stored by a version that kept its input range in a store of its own (1 and 2). */
    public static boolean keepsRangeApart(byte[] skeleton) {
        return StateFormat.versionOf(skeleton) < StateV3Reader.VERSION;
    }
}
