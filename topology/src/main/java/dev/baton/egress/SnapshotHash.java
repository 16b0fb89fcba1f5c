package dev.baton.egress;

import dev.baton.avro.ContextSnapshot;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.IndexedRecord;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;

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
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(canonical(snapshot)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The canonical form (UTF-8 bytes) of {@code snapshot} without its hash. */
    public static byte[] canonical(IndexedRecord snapshot) {
        StringBuilder out = new StringBuilder(4096);
        record(snapshot, out, true);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void record(IndexedRecord r, StringBuilder out, boolean top) {
        List<Schema.Field> fields = new ArrayList<>(r.getSchema().getFields());
        fields.sort((a, b) -> a.name().compareTo(b.name()));
        out.append('{');
        boolean first = true;
        for (Schema.Field f : fields) {
            if (top && f.name().equals(FIELD)) continue;
            Object v = r.get(f.pos());
            if (v == null) continue;
            if (!first) out.append(',');
            first = false;
            string(f.name(), out);
            out.append(':');
            value(v, out);
        }
        out.append('}');
    }

    private static void value(Object v, StringBuilder out) {
        if (v instanceof IndexedRecord r) {
            record(r, out, false);
        } else if (v instanceof CharSequence s) {
            string(s.toString(), out);
        } else if (v instanceof Long || v instanceof Integer) {
            out.append(((Number) v).longValue());
        } else if (v instanceof Boolean b) {
            out.append(b ? "true" : "false");
        } else if (v instanceof Instant t) {
            out.append(t.toEpochMilli());
        } else if (v instanceof Enum<?> e) {
            string(e.name(), out);
        } else if (v instanceof GenericEnumSymbol<?> e) {
            string(e.toString(), out);
        } else if (v instanceof Collection<?> c) {
            out.append('[');
            boolean first = true;
            for (Object item : c) {
                if (!first) out.append(',');
                first = false;
                if (item == null) out.append("null");
                else value(item, out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("no canonical form for a " + v.getClass().getName()
                    + " (a snapshot holds records, strings, integers, booleans, enums, arrays and occurred_at)");
        }
    }

    static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        hex(c, out);
                    } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        out.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        hex(c, out); // a lone surrogate has no UTF-8 form
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void hex(char c, StringBuilder out) {
        out.append("\\u").append(String.format("%04x", (int) c));
    }
}
