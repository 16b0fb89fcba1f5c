package dev.baton.replay;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * JSON Lines files: one JSON object per line, UTF-8, and gzip-compressed when the file name ends in
 * {@code .gz} (docs/contract.md, "JSONL files"). {@code -} means standard input or output.
 *
 * <p>Lines are handled as bytes, not text: a line that is not valid UTF-8 reaches the decoder as is
 * (and is dead-lettered as {@code MALFORMED}) instead of being silently repaired.
 */
public final class Jsonl {

    private Jsonl() {
    }

    /** True when the file is read and written gzip-compressed. */
    public static boolean isGzip(Path file) {
        return file.getFileName() != null
                && file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".gz");
    }

    static boolean isStdio(Path file) {
        return file.toString().equals("-");
    }

    /** Opens a JSONL file (or {@code -}, standard input) for reading line by line. */
    public static Reader reader(Path file) throws IOException {
        InputStream in = isStdio(file) ? System.in : Files.newInputStream(file);
        in = new BufferedInputStream(in, 1 << 16);
        if (isGzip(file)) {
            in = new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16);
        }
        return new Reader(in);
    }

    /**
     * Opens a JSONL file (or {@code -}, standard output) for writing, replacing it and creating its
     * directory. Compressed output is deterministic (gzip header without a timestamp).
     */
    public static Writer writer(Path file) throws IOException {
        OutputStream out;
        if (isStdio(file)) {
            // never close System.out for the caller
            out = new FilterOutputStream(System.out) {
                @Override
                public void close() throws IOException {
                    flush();
                }
            };
        } else {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            out = Files.newOutputStream(file);
        }
        out = new BufferedOutputStream(out, 1 << 16);
        if (isGzip(file)) {
            out = new GZIPOutputStream(out, 1 << 16);
        }
        return new Writer(out);
    }

    /** Counts the lines of a file (for a progress total); -1 for standard input. */
    public static long countLines(Path file) throws IOException {
        if (isStdio(file)) {
            return -1;
        }
        long count = 0;
        try (Reader reader = reader(file)) {
            while (reader.next(0, 0) != null) {
                count++;
            }
        }
        return count;
    }

    /** Counts the non-blank lines of a file (the records of a JSONL file); -1 for standard input. */
    public static long countRecords(Path file) throws IOException {
        if (isStdio(file)) {
            return -1;
        }
        long count = 0;
        try (Reader reader = reader(file)) {
            Line line;
            // a line is never held whole to be counted: past 1 KiB it is not blank anyway
            while ((line = reader.next(1024, 0)) != null) {
                if (line.truncated() || !isBlank(line.bytes())) {
                    count++;
                }
            }
        }
        return count;
    }

    /** True for a line of spaces, tabs or nothing: not a record. */
    public static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    /**
     * A line read with a size limit: {@code bytes} is the whole line when {@code size <= bytes.length}, else only its
     * first bytes (the rest was skipped without being kept).
     */
    public record Line(byte[] bytes, long size) {
        /** True when the line was longer than the limit it was read with. */
        public boolean truncated() {
            return size > bytes.length;
        }
    }

    /**
     * Reads lines as bytes (without the line terminator), numbering them from 1. Scans its own buffer for the line
     * ends, so a line of any length costs at most the limit it is read with in memory.
     */
    public static final class Reader implements Closeable {
        private final InputStream in;
        private final byte[] buffer = new byte[1 << 16];
        private int position;
        private int limit;
        private byte[] line = new byte[4096];
        private long lineNumber;
        private boolean eof;

        Reader(InputStream in) {
            this.in = in;
        }

        /**
         * The next line's bytes without {@code \n} or {@code \r\n}, or null at the end of the input.
         * Blank lines are returned too (as empty arrays): the caller decides what they mean.
         */
        public byte[] next() throws IOException {
            Line l = next(Integer.MAX_VALUE - 16, 0);
            return l == null ? null : l.bytes();
        }

        /**
         * The next line, or null at the end of the input. A line longer than {@code maxBytes} comes back as its first
         * {@code keepBytes} bytes and its full size; it is never held whole.
         */
        public Line next(int maxBytes, int keepBytes) throws IOException {
            if (eof) {
                return null;
            }
            long size = 0;
            int kept = 0;
            boolean any = false;
            byte last = 0;
            while (true) {
                if (position == limit) {
                    limit = in.read(buffer, 0, buffer.length);
                    position = 0;
                    if (limit <= 0) {
                        limit = 0;
                        eof = true;
                        if (!any) {
                            return null;
                        }
                        break;
                    }
                }
                any = true;
                int end = position;
                while (end < limit && buffer[end] != '\n') {
                    end++;
                }
                int n = end - position;
                if (n > 0) {
                    // keep everything up to maxBytes + 1 (the extra byte may be a '\r'); past that only the first keepBytes
                    long whole = (long) maxBytes + 1;
                    int take;
                    if (size + n <= whole) {
                        take = n;
                    } else {
                        kept = Math.min(kept, keepBytes);
                        take = Math.max(0, Math.min(n, keepBytes - kept));
                    }
                    if (take > 0) {
                        ensure(kept + take);
                        System.arraycopy(buffer, position, line, kept, take);
                        kept += take;
                    }
                    size += n;
                    last = buffer[end - 1];
                }
                position = end;
                if (end < limit) {
                    position++; // the '\n'
                    break;
                }
            }
            lineNumber++;
            if (size > 0 && last == '\r') {
                size--;
                if (kept > size) {
                    kept--;
                }
            }
            int length = size > maxBytes ? Math.min(kept, keepBytes) : kept;
            byte[] bytes = java.util.Arrays.copyOf(line, length);
            if (line.length > (1 << 20)) {
                line = new byte[4096]; // do not keep a large buffer for the lines after a large one
            }
            return new Line(bytes, size);
        }

        private void ensure(int capacity) {
            if (capacity > line.length) {
                line = java.util.Arrays.copyOf(line, Math.max(capacity, (int) Math.min(Integer.MAX_VALUE - 16,
                        line.length * 2L)));
            }
        }

        /** The number of the line last returned by {@link #next()} (1 for the first). */
        public long lineNumber() {
            return lineNumber;
        }

        @Override
        public void close() throws IOException {
            if (in != System.in) {
                in.close();
            }
        }
    }

    /** Writes one JSON object per line. */
    public static final class Writer implements Closeable {
        private final OutputStream out;
        private long lines;

        Writer(OutputStream out) {
            this.out = out;
        }

        /** Writes one line: the object's UTF-8 bytes (which must not contain a new line) and {@code \n}. */
        public void write(byte[] jsonObject) throws IOException {
            out.write(jsonObject);
            out.write('\n');
            lines++;
        }

        /** Writes one line of text. */
        public void write(String jsonObject) throws IOException {
            write(jsonObject.getBytes(StandardCharsets.UTF_8));
        }

        public long lines() {
            return lines;
        }

        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
