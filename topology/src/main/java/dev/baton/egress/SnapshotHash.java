package dev.baton.egress;

import dev.baton.avro.ContextSnapshot;
import dev.baton.serde.Utf8Memo;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificRecordBase;

import java.io.ByteArrayOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The content hash of a snapshot: SHA-256 over its canonical form, written as 64 lowercase hex digits into
 * {@code content_sha256}. The canonical form is specified in docs/audit.md (a consumer in any language can rebuild
 * it); in short, the record as a JSON value with
 * <ul>
 *   <li>object members sorted by name, no whitespace, members whose value is null left out, {@code content_sha256}
 *       left out;</li>
 *   <li>strings (including {@code arguments}, as the exact text the field holds) with {@code "} {@code \} and control
 *       characters escaped ({@code \b \t \n \f \r}, else {@code \}{@code u00xx}), lone surrogates as
 *       {@code \}{@code udxxx}, everything else as is, in UTF-8;</li>
 *   <li>integers in plain decimal, enums as their symbols, {@code occurred_at} as epoch milliseconds, arrays in
 *       order.</li>
 * </ul>
 * The form is computed from the schema the record was written with, so fields added later are covered as soon as
 * they are set and leave the hash of older snapshots unchanged while they are null. Thread-safe: each thread has
 * its own reusable writer and {@code MessageDigest} (buffers kept up to 4 MiB).
 */
public final class SnapshotHash {
    /** The field that carries the hash, left out of the canonical form. */
    public static final String FIELD = "content_sha256";

    private SnapshotHash() {
    }

    /** The hash of {@code snapshot} as written into {@value #FIELD}. */
    public static String of(ContextSnapshot snapshot) {
        return of(snapshot, null);
    }

    /**
     * The hash of {@code snapshot}, leaving the long strings' UTF-8 in {@code memo} (when not null) for the Avro
     * encoder that writes the same strings next (the same hash either way).
     */
    public static String of(ContextSnapshot snapshot, Utf8Memo memo) {
        // This thread's writer and digest, reused (the canonical form streams into the digest: it is never held
        // whole, it can be ~1 MB of UTF-8). Private to this class: nothing else reads it.
        Canonical out = PER_THREAD.get();
        out.start(memo);
        try {
            record(snapshot, out, true);
            out.flush();
            return HexFormat.of().formatHex(out.digest.digest());
        } finally {
            out.end();
        }
    }

    private static final ThreadLocal<Canonical> PER_THREAD = ThreadLocal.withInitial(() -> {
        try {
            return new Canonical(MessageDigest.getInstance("SHA-256"), null);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    });

    /** The canonical form (UTF-8 bytes) of {@code snapshot} without its hash. */
    public static byte[] canonical(IndexedRecord snapshot) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(4096);
        Canonical out = new Canonical(null, bytes);
        record(snapshot, out, true);
        out.flush();
        return bytes.toByteArray();
    }

    /** One string's canonical form (UTF-8 bytes, quotes included), as a snapshot's field holds it. */
    static byte[] canonicalString(String s) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Canonical out = new Canonical(null, bytes);
        out.string(s);
        out.flush();
        return bytes.toByteArray();
    }

    /** A record schema's fields sorted by name, with each name already written as a canonical JSON string. */
    private record SortedFields(Schema.Field[] fields, byte[][] names) {
    }

    private static final Map<Schema, SortedFields> SORTED = new ConcurrentHashMap<>();

    private static SortedFields sorted(Schema schema) {
        SortedFields cached = SORTED.get(schema);
        if (cached != null) return cached;
        List<Schema.Field> fields = new ArrayList<>(schema.getFields());
        fields.sort((a, b) -> a.name().compareTo(b.name()));
        byte[][] names = new byte[fields.size()][];
        for (int i = 0; i < names.length; i++) {
            ByteArrayOutputStream name = new ByteArrayOutputStream();
            Canonical c = new Canonical(null, name);
            c.string(fields.get(i).name());
            c.flush();
            names[i] = name.toByteArray();
        }
        SortedFields made = new SortedFields(fields.toArray(new Schema.Field[0]), names);
        SORTED.putIfAbsent(schema, made);
        return made;
    }

    private static void record(IndexedRecord r, Canonical out, boolean top) {
        SortedFields sorted = sorted(r.getSchema());
        out.ascii('{');
        boolean first = true;
        for (int i = 0; i < sorted.fields.length; i++) {
            Schema.Field f = sorted.fields[i];
            if (top && f.name().equals(FIELD)) continue;
            Object v = r.get(f.pos());
            if (v == null) continue;
            if (!first) out.ascii(',');
            first = false;
            out.bytes(sorted.names[i]);
            out.ascii(':');
            value(v, out);
        }
        out.ascii('}');
    }

    private static void value(Object v, Canonical out) {
        // Exact classes first (String, Long, ArrayList: one compare each), then the generated records' and the
        // lists' base classes (a check of one supertype), interfaces last (each a scan of the supertypes: tried
        // first, a list would pay four of them before reaching Collection).
        Class<?> type = v.getClass();
        if (type == String.class) {
            out.string((String) v);
        } else if (type == Long.class) {
            out.decimal((Long) v);
        } else if (type == ArrayList.class || v instanceof AbstractCollection<?>) {
            array((Collection<?>) v, out);
        } else if (type == dev.baton.avro.Message.class && MESSAGE_FIELDS_AS_WRITTEN) {
            message((dev.baton.avro.Message) v, out);
        } else if (v instanceof SpecificRecordBase r) {
            record(r, out, false);
        } else if (v instanceof IndexedRecord r) {
            record(r, out, false);
        } else if (v instanceof CharSequence s) {
            out.string(s.toString());
        } else if (v instanceof Long || v instanceof Integer) {
            out.ascii(Long.toString(((Number) v).longValue()));
        } else if (v instanceof Boolean b) {
            out.ascii(b ? "true" : "false");
        } else if (v instanceof Instant t) {
            out.ascii(Long.toString(t.toEpochMilli()));
        } else if (v instanceof Enum<?> e) {
            out.string(e.name());
        } else if (v instanceof GenericEnumSymbol<?> e) {
            out.string(e.toString());
        } else if (v instanceof Collection<?> c) {
            array(c, out);
        } else {
            throw new IllegalArgumentException("no canonical form for a " + v.getClass().getName()
                    + " (a snapshot holds records, strings, integers, booleans, enums, arrays and occurred_at)");
        }
    }

    /**
     * The message record's fields in name order, as {@link #message} writes them. Messages are most of a snapshot's
     * records (a thousand in a 1,000-turn hand-off), and the generic walk ({@link #record}: the sorted fields looked up
     * by schema, each value fetched boxed through {@code get(int)} and dispatched by class) cost about what their
     * bytes do; {@link #message} writes the same form directly. Should the schema's fields ever differ from these, the
     * check below turns it off and messages go through the generic walk again (SnapshotHashProperties compares both
     * with a reference writer; a test fails while it is off, so that the list is brought up to date).
     */
    private static final List<String> MESSAGE_FIELDS = List.of("content", "name", "role", "tool_call_id", "tool_calls");

    /** True while {@link #MESSAGE_FIELDS} are exactly the message schema's fields (in name order). */
    static final boolean MESSAGE_FIELDS_AS_WRITTEN = MESSAGE_FIELDS.equals(
            java.util.Arrays.stream(sorted(dev.baton.avro.Message.getClassSchema()).fields).map(Schema.Field::name).toList());

    private static final byte[] CONTENT = canonicalName("content");
    private static final byte[] NAME = canonicalName("name");
    private static final byte[] ROLE = canonicalName("role");
    private static final byte[] TOOL_CALL_ID = canonicalName("tool_call_id");
    private static final byte[] TOOL_CALLS = canonicalName("tool_calls");

    /** A member name as written before its value: the canonical string and the colon. */
    private static byte[] canonicalName(String name) {
        byte[] quoted = canonicalString(name);
        byte[] withColon = java.util.Arrays.copyOf(quoted, quoted.length + 1);
        withColon[quoted.length] = ':';
        return withColon;
    }

    /** {@link #record} for a message, its fields in name order written directly (null members left out). */
    private static void message(dev.baton.avro.Message m, Canonical out) {
        out.ascii('{');
        boolean first = member(out, true, CONTENT, m.getContent());
        first = member(out, first, NAME, m.getName());
        first = member(out, first, ROLE, m.getRole());
        first = member(out, first, TOOL_CALL_ID, m.getToolCallId());
        List<dev.baton.avro.ToolCall> calls = m.getToolCalls();
        if (calls != null) {
            if (!first) out.ascii(',');
            out.bytes(TOOL_CALLS);
            array(calls, out);
        }
        out.ascii('}');
    }

    /** A string member unless null; returns whether the object is still without members. */
    private static boolean member(Canonical out, boolean first, byte[] name, String value) {
        if (value == null) return first;
        if (!first) out.ascii(',');
        out.bytes(name);
        out.string(value);
        return false;
    }

    private static void array(Collection<?> c, Canonical out) {
        out.ascii('[');
        boolean first = true;
        for (Object item : c) {
            if (!first) out.ascii(',');
            first = false;
            if (item == null) out.ascii("null");
            else value(item, out);
        }
        out.ascii(']');
    }

    /**
     * The canonical form's UTF-8 bytes as they are written, through a small buffer, into a digest or a byte stream.
     * Strings are escaped and encoded here in one pass (the class comment's rules).
     */
    private static final class Canonical {
        private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

        private final MessageDigest digest;
        private final ByteArrayOutputStream bytes;
        /** Flushed when full, except while a string is written (it may grow to hold one string's whole form). */
        private byte[] buf = new byte[FLUSH_AT];
        private static final int FLUSH_AT = 16 * 1024;
        private int pos;

        /** Where long strings' UTF-8 is taken from and left for the Avro encoder; null: none open. */
        private Utf8Memo memo;

        Canonical(MessageDigest digest, ByteArrayOutputStream bytes) {
            this.digest = digest;
            this.bytes = bytes;
        }

        /** Prepares this (reused) writer for one snapshot. */
        void start(Utf8Memo memo) {
            this.memo = memo;
            pos = 0;
            digest.reset(); // in case the last snapshot failed half-way
        }

        /** Forgets the snapshot; buffers grown unusually large by it are not kept for the next one. */
        void end() {
            memo = null;
            pos = 0;
            if (buf.length > MAX_RETAINED_BYTES) buf = new byte[FLUSH_AT];
            if (chars.length > MAX_RETAINED_BYTES / 2) chars = new char[1024];
        }

        private static final int MAX_RETAINED_BYTES = 4 * 1024 * 1024;

        void flush() {
            if (pos == 0) return;
            if (digest != null) digest.update(buf, 0, pos);
            else bytes.write(buf, 0, pos);
            pos = 0;
        }

        private void room(int n) {
            if (pos + n > buf.length) flush();
        }

        void ascii(char c) {
            room(1);
            buf[pos++] = (byte) c;
        }

        /** {@code n} in plain decimal (as {@code Long.toString} writes it, without the string). */
        void decimal(long n) {
            if (n == Long.MIN_VALUE) {
                ascii(Long.toString(n));
                return;
            }
            room(20);
            if (n < 0) {
                buf[pos++] = '-';
                n = -n;
            }
            int digits = 1;
            for (long m = n; m >= 10; m /= 10) digits++;
            int end = pos + digits;
            for (int i = end - 1; i >= pos; i--) {
                buf[i] = (byte) ('0' + n % 10);
                n /= 10;
            }
            pos = end;
        }

        void ascii(String s) {
            for (int i = 0; i < s.length(); i++) ascii(s.charAt(i));
        }

        void bytes(byte[] b) {
            room(b.length);
            if (b.length > buf.length) {
                if (digest != null) digest.update(b);
                else bytes.write(b, 0, b.length);
                return;
            }
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
        }

        /**
         * A string as a canonical JSON string. Strings longer than {@value #SHORT_STRING} chars are encoded to UTF-8
         * in one go ({@code getBytes}: a plain copy for an ASCII string; taken from, or left in, the open
         * {@link Utf8Memo} for the Avro encoder) and their bytes copied eight at a time while none needs escaping; the
         * bytes of non-ASCII chars need none (UTF-8 has no byte below 0x80 in a multi-byte char). Only a lone
         * surrogate has no UTF-8 form: {@code getBytes} writes it as {@code ?}, so a string whose bytes hold more
         * {@code ?} than the string is taken back (its form is held whole in the buffer, never flushed half-way) and
         * written char by char ({@link #stringByChars}; the tests compare both paths with a reference writer of their own).
         */
        void string(String s) {
            if (s.length() <= SHORT_STRING) {
                stringByChars(s); // names, roles, ids: no array to allocate, one short loop
                return;
            }
            byte[] utf8 = memo != null ? memo.utf8(s) : s.getBytes(StandardCharsets.UTF_8);
            if (!utf8String(s, utf8)) stringByChars(s);
        }

        /** Strings up to this length go char by char: for them the UTF-8 array costs more than it saves. */
        private static final int SHORT_STRING = 24;

        /**
         * Writes {@code utf8} (the UTF-8 bytes of {@code s} by {@code getBytes}) as a canonical JSON string, or
         * nothing and false when {@code s} has a lone surrogate.
         */
        private boolean utf8String(String s, byte[] utf8) {
            if (pos >= FLUSH_AT) flush();
            int len = utf8.length;
            int start = pos;
            grow(len + 2 + ROOM);
            byte[] b = buf;
            int p = pos;
            b[p++] = '"';
            int questionMarks = 0;
            int i = 0;
            // Eight bytes at a time: each word is stored as it is, then the store is cut at its first byte that needs
            // escaping or is '?' (exact: the lowest flagged byte of the test is one), which is then escaped (or kept).
            for (int last = len - 8; i <= last; ) {
                if (b.length - p < ROOM) {
                    pos = p;
                    grow(ROOM + len - i);
                    b = buf;
                }
                long x = (long) LONGS.get(utf8, i);
                LONGS.set(b, p, x);
                long flagged = specialOrQuestionMark(x);
                if (flagged == 0) {
                    p += 8;
                    i += 8;
                    continue;
                }
                int k = Long.numberOfTrailingZeros(flagged) >>> 3;
                p += k;
                byte c = utf8[i + k];
                i += k + 1;
                if (c == '?') {
                    questionMarks++;
                    p++; // already stored
                } else {
                    p = escapeByte(b, p, c);
                }
            }
            // The last bytes one at a time.
            for (; i < len; i++) {
                if (b.length - p < ROOM) {
                    pos = p;
                    grow(ROOM + len - i);
                    b = buf;
                }
                byte c = utf8[i];
                if (c >= 0 && ESCAPES[c] != 0) {
                    p = escapeByte(b, p, c);
                } else {
                    if (c == '?') questionMarks++;
                    b[p++] = c;
                }
            }
            b[p++] = '"';
            pos = p;
            if (questionMarks > 0 && questionMarks != count(s, '?')) {
                pos = start; // a lone surrogate became '?': take it back
                return false;
            }
            return true;
        }

        /** Room kept free while a string is written: one word stored whole and one escape (six bytes) after it. */
        private static final int ROOM = 16;

        private static int count(String s, char c) {
            int n = 0;
            for (int k = s.indexOf(c); k >= 0; k = s.indexOf(c, k + 1)) n++;
            return n;
        }

        /** Makes room for {@code n} more bytes by growing the buffer (not flushing: see {@link #string}). */
        private void grow(int n) {
            if (buf.length - pos >= n) return;
            buf = java.util.Arrays.copyOf(buf, Math.max(pos + n, 2 * buf.length));
        }

        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
        private static final long ONES = 0x0101010101010101L;
        private static final long HIGHS = 0x8080808080808080L;

        /**
         * The high bit of each byte of {@code x} that is below 0x20, {@code "}, {@code \} or {@code ?} — exact for
         * the lowest such byte (a borrow can flag bytes above a flagged one, never below); bytes at or above 0x80
         * are never flagged.
         */
        private static long specialOrQuestionMark(long x) {
            long below = (x - 0x2020202020202020L) & ~x;
            long q = x ^ 0x2222222222222222L;
            long quote = (q - ONES) & ~q;
            long bs = x ^ 0x5c5c5c5c5c5c5c5cL;
            long backslash = (bs - ONES) & ~bs;
            long qm = x ^ 0x3f3f3f3f3f3f3f3fL;
            long question = (qm - ONES) & ~qm;
            return (below | quote | backslash | question) & HIGHS;
        }

        /**
         * For each ASCII byte that needs escaping, the letter of its short escape ({@code \}{@code n}...) or 'u' (written
         * as {@code \}{@code u00xx}); 0 for the others.
         */
        private static final byte[] ESCAPES = new byte[128];

        static {
            for (int c = 0; c < 0x20; c++) ESCAPES[c] = 'u';
            ESCAPES['"'] = '"';
            ESCAPES['\\'] = '\\';
            ESCAPES['\b'] = 'b';
            ESCAPES['\t'] = 't';
            ESCAPES['\n'] = 'n';
            ESCAPES['\f'] = 'f';
            ESCAPES['\r'] = 'r';
        }

        /** Writes byte {@code c} (below 0x20, {@code "} or {@code \\}) escaped at {@code p}; returns the new end. */
        private static int escapeByte(byte[] b, int p, byte c) {
            byte e = ESCAPES[c];
            b[p++] = '\\';
            b[p++] = e;
            if (e == 'u') {
                b[p++] = '0';
                b[p++] = '0';
                b[p++] = HEX[(c >> 4) & 0xf];
                b[p++] = HEX[c & 0xf];
            }
            return p;
        }

        /** Chars of the string being written (bulk-copied: a loop over an array beats charAt's per-call checks). */
        private char[] chars = new char[1024];

        /** {@link #string} char by char, with every rule of the class comment: short strings and lone surrogates. */
        void stringByChars(String s) {
            ascii('"');
            int n = s.length();
            if (chars.length < n) chars = new char[Math.max(n, 2 * chars.length)];
            char[] cs = chars;
            s.getChars(0, n, cs, 0);
            byte[] b = buf;
            int i = 0;
            while (i < n) {
                if (b.length - pos < 13) flush(); // room for one plain char and one escaped or encoded char
                // A run of plain ASCII, one byte each, as far as the buffer has room for.
                int runEnd = Math.min(n, i + (b.length - 12 - pos));
                int p = pos;
                while (i < runEnd) {
                    char c = cs[i];
                    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
                    b[p++] = (byte) c;
                    i++;
                }
                pos = p;
                if (i >= n || i >= runEnd) continue;
                char c = cs[i++];
                if (c == '"' || c == '\\') {
                    escaped(c);
                } else if (c < 0x20) {
                    switch (c) {
                        case '\b' -> escaped('b');
                        case '\t' -> escaped('t');
                        case '\n' -> escaped('n');
                        case '\f' -> escaped('f');
                        case '\r' -> escaped('r');
                        default -> hex(c);
                    }
                } else if (c < 0x80) {
                    b[pos++] = (byte) c;
                } else if (c < 0x800) {
                    b[pos++] = (byte) (0xc0 | (c >> 6));
                    b[pos++] = (byte) (0x80 | (c & 0x3f));
                } else if (Character.isHighSurrogate(c) && i < n && Character.isLowSurrogate(cs[i])) {
                    int cp = Character.toCodePoint(c, cs[i++]);
                    b[pos++] = (byte) (0xf0 | (cp >> 18));
                    b[pos++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
                    b[pos++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
                    b[pos++] = (byte) (0x80 | (cp & 0x3f));
                } else if (Character.isSurrogate(c)) {
                    hex(c); // a lone surrogate has no UTF-8 form
                } else {
                    b[pos++] = (byte) (0xe0 | (c >> 12));
                    b[pos++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                    b[pos++] = (byte) (0x80 | (c & 0x3f));
                }
            }
            ascii('"');
        }

        private void escaped(char c) {
            buf[pos++] = '\\';
            buf[pos++] = (byte) c;
        }

        /** {@code \}{@code u} and four lowercase hex digits. */
        private void hex(char c) {
            buf[pos++] = '\\';
            buf[pos++] = 'u';
            buf[pos++] = HEX[(c >> 12) & 0xf];
            buf[pos++] = HEX[(c >> 8) & 0xf];
            buf[pos++] = HEX[(c >> 4) & 0xf];
            buf[pos++] = HEX[c & 0xf];
        }
    }
}
