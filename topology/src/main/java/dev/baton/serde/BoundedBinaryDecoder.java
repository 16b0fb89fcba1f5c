package dev.baton.serde;

import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * An Avro binary decoder over a byte array that never trusts a length it reads: a string, bytes or fixed length, and
 * an array or map block count, must fit in the bytes that are left, so a corrupt or hostile record fails with
 * {@link MalformedAvroException} (or {@link EOFException}) instead of allocating gigabytes first, as Avro's own
 * {@code BinaryDecoder} does. Strings must be valid UTF-8 (Avro's decoder silently replaces bad bytes; {@link StrictUtf8} checks).
 *
 * <p>Used by {@link ConfluentAvroCodec} under Avro's {@code ResolvingDecoder}; not thread-safe (one per record).
 * The block-count bound assumes every array or map item takes at least one byte, true of every schema in
 * {@code schemas/} (no arrays of null or of empty records).
 */
public final class BoundedBinaryDecoder extends Decoder {

    /** Bytes that are not valid Avro binary for the schema being read. */
    public static final class MalformedAvroException extends IOException {
        private static final long serialVersionUID = 1L;

        public MalformedAvroException(String message) {
            super(message);
        }
    }

    private final byte[] buf;
    private int pos;
    private final int limit;

    public BoundedBinaryDecoder(byte[] buf, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > buf.length) throw new IndexOutOfBoundsException();
        this.buf = buf;
        this.pos = offset;
        this.limit = offset + length;
    }

    /** True when every byte was consumed. */
    public boolean isEnd() {
        return pos >= limit;
    }

    public int remaining() {
        return limit - pos;
    }

    private void require(long n, String what) throws IOException {
        if (n < 0) throw new MalformedAvroException("negative " + what + " (" + n + ")");
        if (n > limit - pos) {
            if (pos >= limit) throw new EOFException("record ends before its " + what);
            throw new MalformedAvroException(what + " of " + n + " exceeds the " + (limit - pos) + " bytes left");
        }
    }

    private int readByte() throws IOException {
        if (pos >= limit) throw new EOFException("record is truncated");
        return buf[pos++] & 0xff;
    }

    @Override
    public void readNull() {
    }

    @Override
    public boolean readBoolean() throws IOException {
        int b = readByte();
        if (b > 1) throw new MalformedAvroException("invalid boolean byte " + b);
        return b == 1;
    }

    @Override
    public int readInt() throws IOException {
        long raw = 0;
        int shift = 0;
        while (true) {
            int b = readByte();
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) break;
            shift += 7;
            if (shift > 28) throw new MalformedAvroException("invalid int encoding");
        }
        if (raw > 0xffffffffL) throw new MalformedAvroException("invalid int encoding");
        int n = (int) raw;
        return (n >>> 1) ^ -(n & 1);
    }

    @Override
    public long readLong() throws IOException {
        long raw = 0;
        int shift = 0;
        while (true) {
            int b = readByte();
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) break;
            shift += 7;
            if (shift > 63) throw new MalformedAvroException("invalid long encoding");
        }
        return (raw >>> 1) ^ -(raw & 1);
    }

    @Override
    public float readFloat() throws IOException {
        require(4, "float");
        int bits = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16 | (buf[pos + 3] & 0xff) << 24;
        pos += 4;
        return Float.intBitsToFloat(bits);
    }

    @Override
    public double readDouble() throws IOException {
        require(8, "double");
        long bits = 0;
        for (int i = 7; i >= 0; i--) bits = (bits << 8) | (buf[pos + i] & 0xff);
        pos += 8;
        return Double.longBitsToDouble(bits);
    }

    private int readLength(String what) throws IOException {
        long n = readLong();
        require(n, what + " length");
        return (int) n;
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        return new Utf8(readString());
    }

    @Override
    public String readString() throws IOException {
        int n = readLength("string");
        String s = StrictUtf8.decode(buf, pos, n);
        if (s == null) throw new MalformedAvroException("string is not valid UTF-8");
        pos += n;
        return s;
    }

    @Override
    public void skipString() throws IOException {
        int n = readLength("string"); // not `pos += readLength(..)`: that would add to pos as it was before the read
        pos += n;
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        int n = readLength("bytes");
        ByteBuffer result = ByteBuffer.wrap(java.util.Arrays.copyOfRange(buf, pos, pos + n));
        pos += n;
        return result;
    }

    @Override
    public void skipBytes() throws IOException {
        int n = readLength("bytes");
        pos += n;
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        require(length, "fixed");
        System.arraycopy(buf, pos, bytes, start, length);
        pos += length;
    }

    @Override
    public void skipFixed(int length) throws IOException {
        require(length, "fixed");
        pos += length;
    }

    @Override
    public int readEnum() throws IOException {
        return readInt();
    }

    /** A block count; a negative count is followed by the block's byte size (which we do not need). */
    private long readBlockCount(String what) throws IOException {
        long count = readLong();
        if (count < 0) {
            if (count == Long.MIN_VALUE) throw new MalformedAvroException("invalid " + what + " block count");
            readLong();
            count = -count;
        }
        require(count, what + " block count");
        return count;
    }

    @Override
    public long readArrayStart() throws IOException {
        return readBlockCount("array");
    }

    @Override
    public long arrayNext() throws IOException {
        return readBlockCount("array");
    }

    /** Skips whole blocks that carry their byte size; returns the item count of the next block to skip by items. */
    private long skipBlocks(String what) throws IOException {
        while (true) {
            long count = readLong();
            if (count >= 0) {
                require(count, what + " block count");
                return count;
            }
            if (count == Long.MIN_VALUE) throw new MalformedAvroException("invalid " + what + " block count");
            long size = readLong();
            require(size, what + " block size");
            pos += (int) size;
        }
    }

    @Override
    public long skipArray() throws IOException {
        return skipBlocks("array");
    }

    @Override
    public long readMapStart() throws IOException {
        return readBlockCount("map");
    }

    @Override
    public long mapNext() throws IOException {
        return readBlockCount("map");
    }

    @Override
    public long skipMap() throws IOException {
        return skipBlocks("map");
    }

    @Override
    public int readIndex() throws IOException {
        return readInt();
    }
}
