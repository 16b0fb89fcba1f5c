package dev.baton.engine.snapshot;

import dev.baton.engine.model.ToolCall;

import java.util.Arrays;
import java.util.List;

/**
 * What a later snapshot for the same receiver needs of this one's messages to say how much of them it starts with
 * ({@code stats.stable_prefix_chars}, docs/rendering.md "Stable prefix"): the length of the message stream, its hash
 * at the end, and its hash after every {@value #BLOCK_CHARS} characters. A few bytes per kilo-character of
 * transcript, bounded by the transcript budget, instead of the messages themselves.
 *
 * <p>The message stream is, message by message in order: the role, the name and the {@code tool_call_id} (boundary
 * marks: hashed, not counted), the content (counted), then per tool call its call id (a mark), its tool name
 * (counted), a separator mark and its arguments (counted). The counted characters are exactly what
 * {@code stats.message_chars} counts. A prefix of {@code p} characters is everything of the stream up to and
 * including its {@code p}-th counted character (the marks before it too). The stable prefix of a snapshot against
 * its receiver's previous one is the previous stream's whole length when the new stream starts with all of it,
 * otherwise the longest prefix both share rounded down to a multiple of {@value #BLOCK_CHARS}.
 *
 * <p>The hash is a 64-bit FNV-1a chain over the UTF-16 code units with a mixed-in tag per mark: it is not
 * cryptographic (a crafted collision could only overstate this statistic, never change a rendering).
 */
public final class PrefixPrint {
    /** The granularity of a stable prefix that does not cover the whole previous stream. */
    public static final int BLOCK_CHARS = 1024;

    private static final long OFFSET = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;
    private static final long NULL_MARK = 0x5bd1e9955bd1e995L;
    private static final long SEPARATOR = 0x27d4eb2f165667c5L;

    private final long anchorSeq;
    private final boolean anchorMarker;
    private final long length;
    private final long endHash;
    private final long[] blocks;

    /**
     * @param anchorSeq the first seq of the trimmed transcript's tail, or -1 when it was not trimmed (what the trim
     *                  step of the next hand-off starts from, see {@code Policy#trimStepChars})
     * @param anchorMarker whether that transcript's middle was the bare marker rather than the digest
     * @param length    counted characters of the message stream
     * @param endHash   the hash of the whole stream (through its last counted character)
     * @param blocks    the hash through character {@code (i + 1) * BLOCK_CHARS}, for each whole block
     */
    public PrefixPrint(long anchorSeq, boolean anchorMarker, long length, long endHash, long[] blocks) {
        this.anchorSeq = anchorSeq;
        this.anchorMarker = anchorMarker;
        this.length = length;
        this.endHash = endHash;
        this.blocks = blocks.clone();
    }

    public long anchorSeq() {
        return anchorSeq;
    }

    public boolean anchorMarker() {
        return anchorMarker;
    }

    public long length() {
        return length;
    }

    public long endHash() {
        return endHash;
    }

    public int blockCount() {
        return blocks.length;
    }

    public long block(int i) {
        return blocks[i];
    }

    /** The print of {@code messages} (with {@code anchorSeq}) and how much of {@code previous} they start with. */
    public record Comparison(PrefixPrint print, Long stableChars) {
    }

    /**
     * Walks {@code messages} once: their print, and the stable prefix against {@code previous} (null when there is
     * no previous print).
     */
    public static Comparison compare(List<Message> messages, PrefixPrint previous, long anchorSeq,
                                     boolean anchorMarker) {
        Walk w = new Walk(previous == null ? -1 : previous.length);
        for (Message m : messages) {
            w.mark(m.role());
            w.mark(m.name());
            w.mark(m.toolCallId());
            w.chars(m.content());
            for (ToolCall c : m.toolCalls()) {
                w.mark(c.callId());
                w.chars(c.tool());
                w.separator();
                w.chars(c.arguments());
            }
        }
        PrefixPrint print = new PrefixPrint(anchorSeq, anchorMarker, w.count, w.lastCharHash,
                Arrays.copyOf(w.blocks, w.blockCount));
        return new Comparison(print, previous == null ? null : stable(previous, print, w));
    }

    private static long stable(PrefixPrint previous, PrefixPrint current, Walk w) {
        if (previous.length == 0) return 0;
        if (previous.length <= current.length && w.atTarget == previous.endHash) return previous.length;
        int n = Math.min(previous.blocks.length, current.blocks.length);
        int k = 0;
        while (k < n && previous.blocks[k] == current.blocks[k]) k++;
        return (long) k * BLOCK_CHARS;
    }

    /** One pass over a message stream: the running hash, the count, block hashes and the hash at a target length. */
    private static final class Walk {
        final long target;
        long hash = OFFSET;
        long count;
        long lastCharHash = OFFSET;
        long atTarget;
        long[] blocks = new long[16];
        int blockCount;

        Walk(long target) {
            this.target = target;
        }

        void mark(String s) {
            if (s == null) {
                hash = mix(hash ^ NULL_MARK);
                return;
            }
            hash = mix(hash + 0x9e3779b97f4a7c15L * (s.length() + 1L));
            for (int i = 0; i < s.length(); i++) hash = (hash ^ s.charAt(i)) * PRIME;
            hash = mix(hash);
        }

        void separator() {
            hash = mix(hash ^ SEPARATOR);
        }

        /**
         * The counted characters of {@code s}. The same chain as one multiply per char with the block and target
         * checks after each, but the checks run only where a block ends or the target is reached, and the chars are
         * read from a reused array in runs between those points (a tight loop the JIT compiles without the per-char
         * {@code String.charAt} dispatch and bounds checks: on a 160 KB transcript the per-char form was the most
         * expensive part of a hand-off).
         */
        void chars(String s) {
            int len = s.length();
            if (len == 0) return;
            long h = hash;
            long n = count;
            char[] run = chunk;
            for (int from = 0; from < len; ) {
                int size = Math.min(len - from, run.length);
                s.getChars(from, from + size, run, 0);
                from += size;
                int i = 0;
                while (i < size) {
                    // chars until the next point where something is recorded: a block's end or the target
                    long toPoint = BLOCK_CHARS - n % BLOCK_CHARS;
                    if (target > n) toPoint = Math.min(toPoint, target - n);
                    int end = (int) Math.min(size, i + toPoint);
                    for (int k = i; k < end; k++) h = (h ^ run[k]) * PRIME;
                    n += end - i;
                    i = end;
                    if (n % BLOCK_CHARS == 0) {
                        if (blockCount == blocks.length) blocks = Arrays.copyOf(blocks, 2 * blocks.length);
                        blocks[blockCount++] = h;
                    }
                    if (n == target) atTarget = h;
                }
            }
            lastCharHash = h;
            hash = h;
            count = n;
        }

        /** Chars are copied here from a string before they are hashed: a run of them at a time. */
        private final char[] chunk = new char[CHUNK_CHARS];
        private static final int CHUNK_CHARS = 4096;

        /** MurmurHash3's 64-bit finalizer: a tag (mark) changes every bit of what follows. */
        static long mix(long z) {
            z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
            z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
            return z ^ (z >>> 33);
        }
    }
}
