package dev.baton.serde;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The UTF-8 bytes of the long strings of one value being written, found by the identity of each {@link String} so that
 * a string encoded once (by the content hash) is not encoded again (by the Avro encoder) while one hand-off is
 * written. A hand-off's message contents run to 400,000 chars; each was encoded twice before.
 *
 * <pre>{@code
 * try (Utf8Memo m = memo) {                                  // the caller's own (reused) memo
 *     record.setContentSha256(SnapshotHash.of(record, m));   // fills it: m.utf8(s)
 *     return codec.serialize(topic, record, m);              // reads it
 * }
 * }</pre>
 *
 * <p>A plain object passed by the caller to both writers (no thread-local, nothing shared behind their backs); one
 * memo serves one value at a time and is reused for the next: closing forgets every string (no reference outlives
 * the value: nothing leaks from one hand-off, or tenant, to the next). The bytes are exactly
 * {@code String.getBytes(UTF_8)} (a lone surrogate as {@code ?}, as Avro writes it), so a reader gets the same bytes
 * from the memo as without it. Bounded: past {@link #MAX_ENTRIES} strings or {@link #MAX_BYTES} bytes it stops
 * remembering (strings are then encoded where needed, as without a memo). Strings shorter than {@link #MIN_CHARS}
 * chars are not kept (encoding them costs about what a look-up does). Not thread-safe: confined to its thread.
 */
public final class Utf8Memo implements AutoCloseable {
    /** Strings shorter than this are not kept. */
    public static final int MIN_CHARS = 25;
    /** At most this many strings per open memo. */
    static final int MAX_ENTRIES = 1 << 14;
    /** At most this many bytes (of the kept arrays) per open memo. */
    static final int MAX_BYTES = 16 * 1024 * 1024;
    /** Tables grown past this many entries by an unusually large value are not kept for the next one. */
    private static final int MAX_RETAINED_SLOTS = 4 * 1024;

    /** The strings kept, in the order they were kept, and at the same index their bytes. */
    private String[] keys = new String[256];
    private byte[][] values = new byte[256][];
    private int count;
    private long bytes;
    /** Where the next look-up starts: the index after the last string found. */
    private int cursor;
    /** An empty memo. */
    public Utf8Memo() {
    }

    /**
     * {@code s}'s UTF-8 bytes, encoded now and kept (within the bounds) for a later {@link #get}. The writer that
     * encodes first calls this once per string: it does not look the string up (a string written twice is encoded
     * twice). Do not modify the bytes.
     */
    public byte[] utf8(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        put(s, utf8);
        return utf8;
    }

    /**
     * {@code s}'s UTF-8 bytes if kept, else null. Do not modify them. Looked up by identity near where the last
     * look-up found its string: the content hash and the Avro encoder meet the long strings in nearly the same order
     * (messages in order, each one's content before its calls' arguments), so a look-up mostly costs a compare or two
     * instead of a hash. Only the top-level fields come in another order (the hash's are sorted by name, Avro's
     * follow the schema: the call ledger's strings, say, sit between the brick's and the messages' in the memo, and
     * come last in Avro): a string not near the cursor is looked for in all the memo once, and the cursor follows
     * from where it was found. Those scans are bounded ({@link #MAX_SCANS} per open memo), so strings met in no
     * order at all cost at most that many scans, then are encoded again.
     */
    public byte[] get(String s) {
        if (count == 0 || s.length() < MIN_CHARS) return null;
        String[] k = keys;
        int from = Math.max(0, cursor - BEHIND);
        int to = Math.min(count, cursor + AHEAD);
        for (int i = cursor; i < to; i++) {
            if (k[i] == s) return found(i);
        }
        for (int i = from; i < cursor && i < count; i++) {
            if (k[i] == s) return found(i);
        }
        if (scans >= MAX_SCANS) return null;
        scans++;
        for (int i = 0; i < count; i++) {
            if (k[i] == s) return found(i);
        }
        return null;
    }

    private byte[] found(int i) {
        cursor = i + 1;
        return values[i];
    }

    /** How far ahead of and behind the cursor {@link #get} looks. */
    private static final int AHEAD = 16;
    private static final int BEHIND = 8;
    /** Look-ups beyond the cursor's neighbourhood per open memo (a snapshot needs about one per top-level field). */
    static final int MAX_SCANS = 32;
    private int scans;

    /** Keeps {@code utf8} as the bytes of {@code s} (which they must be), within the bounds. */
    void put(String s, byte[] utf8) {
        if (s.length() < MIN_CHARS || count >= MAX_ENTRIES || bytes + utf8.length > MAX_BYTES) return;
        if (count == keys.length) {
            keys = Arrays.copyOf(keys, 2 * count);
            values = Arrays.copyOf(values, 2 * count);
        }
        keys[count] = s;
        values[count] = utf8;
        count++;
        bytes += utf8.length;
    }

    /** Entries kept (for tests). */
    int size() {
        return count;
    }

    /** Forgets every string (the memo can serve the next value). */
    @Override
    public void close() {
        if (keys.length > MAX_RETAINED_SLOTS) {
            keys = new String[256];
            values = new byte[256][];
        } else {
            Arrays.fill(keys, 0, count, null);
            Arrays.fill(values, 0, count, null);
        }
        count = 0;
        bytes = 0;
        cursor = 0;
        scans = 0;
    }
}
