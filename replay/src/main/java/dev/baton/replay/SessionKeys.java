package dev.baton.replay;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The session keys of a replay's input, in order of first appearance, kept on disk: the replay settles every session
 * at the end, and an input may name more sessions than the heap can hold. A bounded cache of recently seen keys keeps
 * the file from repeating a key for every event; a key that comes back after the cache forgot it is written again
 * (its session is then settled twice, which is harmless: a second settle finds nothing to release).
 */
final class SessionKeys implements Iterable<String>, Closeable {

    /** Recently seen keys remembered in memory. */
    static final int CACHE_KEYS = 50_000;

    private final Path file;
    private final Map<String, Boolean> recent = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > CACHE_KEYS;
        }
    };
    private DataOutputStream out;
    private long written;

    SessionKeys(Path file) {
        this.file = file;
    }

    void add(String key) {
        if (recent.put(key, Boolean.TRUE) != null) {
            return;
        }
        try {
            if (out == null) {
                Files.createDirectories(file.getParent());
                out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
            }
            out.writeUTF(key);
            written++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Keys written (distinct, unless the cache forgot some). */
    long written() {
        return written;
    }

    /** Ends the adding; the keys can then be read. */
    void finish() {
        try {
            if (out != null) {
                out.close();
                out = null;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        recent.clear();
    }

    @Override
    public Iterator<String> iterator() {
        if (!Files.exists(file)) {
            return java.util.Collections.emptyIterator();
        }
        DataInputStream in;
        try {
            in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return new Iterator<>() {
            private String next = read();

            private String read() {
                try {
                    return in.readUTF();
                } catch (EOFException end) {
                    closeQuietly();
                    return null;
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + file, e);
                }
            }

            private void closeQuietly() {
                try {
                    in.close();
                } catch (IOException ignored) {
                    // read to its end already
                }
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public String next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                String current = next;
                next = read();
                return current;
            }
        };
    }

    @Override
    public void close() {
        finish();
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the replay's work directory is deleted as a whole anyway
        }
    }
}
