package dev.baton.serde;

import org.apache.avro.io.BinaryData;
import org.apache.avro.io.BinaryEncoder;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An Avro {@link BinaryEncoder} that writes straight into a growable byte array, meant to be reused: one per
 * writing thread, {@link #reset} before each value, {@link #toByteArray} after. It writes the same bytes as Avro's
 * own binary encoders (the encodings are Avro's: {@link BinaryData}'s varints and IEEE forms; strings as their UTF-8
 * bytes, which is what Avro's {@code writeString} writes too, lone surrogates as {@code ?} like
 * {@code String.getBytes}); what it saves is an {@code OutputStream}, a buffered encoder and their copies per value,
 * and Avro's char-by-char loop for short strings; with a {@link Utf8Memo} ({@link #useMemo}) it also saves encoding a
 * string the content hash has just encoded. Written by hand because Avro has no public reusable encoder over a
 * byte array ({@code BufferedBinaryEncoder}'s constructor is package-private). Not thread-safe.
 */
public final class ByteArrayBinaryEncoder extends BinaryEncoder {
    private byte[] buf;
    private int pos;

    /** Strings already encoded (by the content hash of the value being written), or null. */
    private Utf8Memo memo;

    public ByteArrayBinaryEncoder(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    /**
     * Takes long strings' UTF-8 from {@code memo} where it holds them (the same bytes: it holds
     * {@code getBytes(UTF_8)}), until set to null.
     */
    public void useMemo(Utf8Memo memo) {
        this.memo = memo;
    }

    /** Forgets what was written; keeps the array. */
    public void reset() {
        pos = 0;
    }

    /** Bytes written since the last {@link #reset}. */
    public int size() {
        return pos;
    }

    /** The bytes written since the last {@link #reset}, as a new array of exactly that length. */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }

    /** The array's current capacity (for callers that drop an encoder grown unusually large). */
    public int capacity() {
        return buf.length;
    }

    private void ensure(int n) {
        if (buf.length - pos >= n) return;
        long want = Math.max((long) pos + n, 2L * buf.length);
        if (want > Integer.MAX_VALUE - 16) want = (long) pos + n;
        if (want > Integer.MAX_VALUE - 16) throw new OutOfMemoryError("Avro value over 2 GB");
        buf = Arrays.copyOf(buf, (int) want);
    }

    @Override
    public void flush() {
        // nothing buffered elsewhere
    }

    @Override
    public void writeBoolean(boolean b) {
        ensure(1);
        buf[pos++] = (byte) (b ? 1 : 0);
    }

    @Override
    public void writeInt(int n) {
        ensure(5);
        pos += BinaryData.encodeInt(n, buf, pos);
    }

    @Override
    public void writeLong(long n) {
        ensure(10);
        pos += BinaryData.encodeLong(n, buf, pos);
    }

    @Override
    public void writeFloat(float f) {
        ensure(4);
        pos += BinaryData.encodeFloat(f, buf, pos);
    }

    @Override
    public void writeDouble(double d) {
        ensure(8);
        pos += BinaryData.encodeDouble(d, buf, pos);
    }

    @Override
    public void writeFixed(byte[] bytes, int start, int len) {
        ensure(len);
        System.arraycopy(bytes, start, buf, pos, len);
        pos += len;
    }

    @Override
    public void writeString(String string) {
        if (string.isEmpty()) {
            writeZero();
            return;
        }
        byte[] utf8 = memo != null ? memo.get(string) : null;
        if (utf8 == null) utf8 = string.getBytes(StandardCharsets.UTF_8);
        ensure(5 + utf8.length);
        pos += BinaryData.encodeInt(utf8.length, buf, pos);
        System.arraycopy(utf8, 0, buf, pos, utf8.length);
        pos += utf8.length;
    }

    @Override
    protected void writeZero() {
        ensure(1);
        buf[pos++] = 0;
    }

    @Override
    public int bytesBuffered() {
        return 0;
    }
}
