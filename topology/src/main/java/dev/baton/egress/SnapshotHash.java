package dev.baton.egress;

import dev.baton.avro.ContextSnapshot;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.IndexedRecord;

import java.io.ByteArrayOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
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
 * they are set and leave the hash of older snapshots unchanged while they are null. Thread-safe.
 */
public final class SnapshotHash {
    /** The field that carries the hash, left out of the canonical form. */
    public static final String FIELD = "content_sha256";

    private SnapshotHash() {
    }

    /** The hash of {@code snapshot} as written into {@value #FIELD}. */
    public static String of(ContextSnapshot snapshot) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        // The canonical form streams into the digest: it is never held whole (it can be ~1 MB of UTF-8).
        Canonical out = new Canonical(sha, null);
        record(snapshot, out, true);
        out.flush();
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The canonical form (UTF-8 bytes) of {@code snapshot} without its hash. */
    public static byte[] canonical(IndexedRecord snapshot) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(4096);
        Canonical out = new Canonical(null, bytes);
        record(snapshot, out, true);
        out.flush();
        return bytes.toByteArray();
    }

    /**
     * One string's canonical form (UTF-8 bytes, quotes included), by the fast path or, with {@code byChars}, by the
     * char-by-char reference: for the tests that pin the two to each other.
     */
    static byte[] canonicalString(String s, boolean byChars) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Canonical out = new Canonical(null, bytes);
        if (byChars) out.stringByChars(s);
        else out.string(s);
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
        // Exact classes first (String, Long: one compare each), interfaces after (each a scan of the supertypes).
        if (v.getClass() == String.class) {
            out.string((String) v);
        } else if (v.getClass() == Long.class) {
            out.ascii(Long.toString((Long) v));
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
            out.ascii('[');
            boolean first = true;
            for (Object item : c) {
                if (!first) out.ascii(',');
                first = false;
                if (item == null) out.ascii("null");
                else value(item, out);
            }
            out.ascii(']');
        } else {
            throw new IllegalArgumentException("no canonical form for a " + v.getClass().getName()
                    + " (a snapshot holds records, strings, integers, booleans, enums, arrays and occurred_at)");
        }
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

        Canonical(MessageDigest digest, ByteArrayOutputStream bytes) {
            this.digest = digest;
            this.bytes = bytes;
        }

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
         * A string as a canonical JSON string. The fast path is for ASCII strings (most of a transcript): their
         * canonical form is their own bytes with {@code "}, {@code \\} and bytes below 0x20 escaped. It takes the
         * string's ISO-8859-1 bytes ({@code getBytes}: a plain copy for a Latin-1 string, an intrinsic for others;
         * every char above 0xff becomes {@code ?}) and copies them eight at a time while no byte needs escaping. A
         * byte at or above 0x80, or more {@code ?} bytes than {@code ?} chars in the string, means the string is not
         * ASCII: what was written of it is taken back (a string's form is held whole in the buffer, never flushed
         * half-way) and it is written char by char ({@link #stringByChars}, with UTF-8 and lone surrogates: the
         * reference, which the tests compare the fast path against).
         */
        void string(String s) {
            if (s.length() <= SHORT_STRING) {
                stringByChars(s); // names, roles, ids: no array to allocate, one short loop
                return;
            }
            if (pos >= FLUSH_AT) flush();
            byte[] latin = s.getBytes(StandardCharsets.ISO_8859_1);
            int len = latin.length;
            int start = pos;
            grow(len + 2);
            buf[pos++] = '"';
            int questionMarks = 0;
            byte[] b = buf;
            int p = pos;
            int i = 0;
            while (i < len) {
                // Eight bytes at a time while none needs escaping, is '?' or is not ASCII (an exact test), as they are.
                while (i + 8 <= len) {
                    long x = (long) LONGS.get(latin, i);
                    if (hasSpecialOrQuestionMarkOrHighBit(x)) break;
                    LONGS.set(b, p, x);
                    p += 8;
                    i += 8;
                }
                // Then byte by byte to the end of that word (or of the string).
                int wordEnd = Math.min(len, i + 8);
                for (; i < wordEnd; i++) {
                    byte c = latin[i];
                    if (c < 0) {
                        pos = start; // not ASCII: take it back, write it char by char
                        stringByChars(s);
                        return;
                    }
                    if (c < 0x20 || c == '"' || c == '\\') {
                        if (b.length - p < 6 + len - i) {
                            pos = p;
                            grow(6 + len - i);
                            b = buf;
                        }
                        p = escapeByte(b, p, c);
                    } else {
                        if (c == '?') questionMarks++;
                        b[p++] = c;
                    }
                }
            }
            pos = p;
            buf[pos++] = '"';
            if (questionMarks > 0 && questionMarks != count(s, '?')) {
                pos = start; // a char above 0xff became '?': take it back, write it char by char
                stringByChars(s);
            }
        }

        /** Strings up to this length go char by char: for them the UTF-8 array costs more than it saves. */
        private static final int SHORT_STRING = 24;

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
         * True when one of the eight bytes of {@code x} is below 0x20, {@code "}, {@code \\}, {@code ?} or at or above
         * 0x80 (exact: a word of none of them is never taken for one, and the other way round).
         */
        private static boolean hasSpecialOrQuestionMarkOrHighBit(long x) {
            long below = (x - 0x2020202020202020L) & ~x;
            long q = x ^ 0x2222222222222222L;
            long quote = (q - ONES) & ~q;
            long bs = x ^ 0x5c5c5c5c5c5c5c5cL;
            long backslash = (bs - ONES) & ~bs;
            long qm = x ^ 0x3f3f3f3f3f3f3f3fL;
            long question = (qm - ONES) & ~qm;
            return ((below | quote | backslash | question | x) & HIGHS) != 0;
        }

        /** Writes byte {@code c} (below 0x20, {@code "} or {@code \\}) escaped at {@code p}; returns the new end. */
        private static int escapeByte(byte[] b, int p, byte c) {
            b[p++] = '\\';
            switch (c) {
                case '"' -> b[p++] = '"';
                case '\\' -> b[p++] = '\\';
                case '\b' -> b[p++] = 'b';
                case '\t' -> b[p++] = 't';
                case '\n' -> b[p++] = 'n';
                case '\f' -> b[p++] = 'f';
                case '\r' -> b[p++] = 'r';
                default -> {
                    b[p++] = 'u';
                    b[p++] = '0';
                    b[p++] = '0';
                    b[p++] = HEX[(c >> 4) & 0xf];
                    b[p++] = HEX[c & 0xf];
                }
            }
            return p;
        }

        /** Chars of the string being written (bulk-copied: a loop over an array beats charAt's per-call checks). */
        private char[] chars = new char[1024];

        /** {@link #string} char by char, with every rule of the class comment: the reference of the fast path. */
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
