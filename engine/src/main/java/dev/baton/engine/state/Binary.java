package dev.baton.engine.state;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The primitives of {@link StateFormat}, written by hand (the engine module depends on Jackson only, and the stored
 * format is small and fixed per version): signed numbers as zig-zag varints (as in Avro and protobuf), strings as a
 * varint length then UTF-8 with length -1 for null, booleans as one byte, lists as a varint count then the items.
 */
final class Binary {
    private Binary() {
    }

    /** A growable byte buffer (not a ByteArrayOutputStream: no locking, and no copy when sized right). */
    static final class Writer {
        private byte[] buf;
        private int size;

        Writer(int size) {
            buf = new byte[Math.max(16, size)];
        }

        private void room(int more) {
            if (size + more > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }

        Writer raw(int b) {
            room(1);
            buf[size++] = (byte) b;
            return this;
        }

        Writer num(long v) {
            room(10);
            long z = (v << 1) ^ (v >> 63);
            while ((z & ~0x7FL) != 0) {
                buf[size++] = (byte) ((z & 0x7F) | 0x80);
                z >>>= 7;
            }
            buf[size++] = (byte) z;
            return this;
        }

        Writer bool(boolean b) {
            return raw(b ? 1 : 0);
        }

        Writer str(String s) {
            if (s == null) return num(-1);
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            num(b.length);
            room(b.length);
            System.arraycopy(b, 0, buf, size, b.length);
            size += b.length;
            return this;
        }

        Writer strs(List<String> list) {
            num(list.size());
            for (String s : list) str(s);
            return this;
        }

        byte[] bytes() {
            return size == buf.length ? buf : Arrays.copyOf(buf, size);
        }
    }

    static final class Reader {
        private final byte[] b;
        private int at;

        Reader(byte[] bytes, int offset) {
            this.b = bytes;
            this.at = offset;
        }

        int raw() {
            if (at >= b.length) throw new IllegalArgumentException("stored state ends early at byte " + at);
            return b[at++] & 0xFF;
        }

        long num() {
            long z = 0;
            int shift = 0;
            while (true) {
                int x = raw();
                z |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) break;
                shift += 7;
                if (shift > 63) throw new IllegalArgumentException("malformed varint at byte " + at);
            }
            return (z >>> 1) ^ -(z & 1);
        }

        int count() {
            long n = num();
            if (n < 0 || n > b.length - at) throw new IllegalArgumentException("bad count " + n + " at byte " + at);
            return (int) n;
        }

        boolean bool() {
            int x = raw();
            if (x > 1) throw new IllegalArgumentException("bad boolean " + x + " at byte " + (at - 1));
            return x == 1;
        }

        String str() {
            long n = num();
            if (n == -1) return null;
            if (n < 0 || n > b.length - at) throw new IllegalArgumentException("bad string length " + n + " at byte " + at);
            String s = new String(b, at, (int) n, StandardCharsets.UTF_8);
            at += (int) n;
            return s;
        }

        List<String> strs() {
            int n = count();
            List<String> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) out.add(str());
            return out;
        }

        void end() {
            if (at != b.length) throw new IllegalArgumentException((b.length - at) + " unread bytes in stored state");
        }
    }
}
