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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reorder buffer of a replay: records that arrive in any order, each with its position (an input line),
 * leave in position order once every lower position is known to be done ({@link #drainBelow}).
 *
 * <p>Memory is bounded: past {@code memoryBytes} of buffered values, what is held is written to disk as one sorted
 * run, and draining merges the runs (each read sequentially, one buffered entry per run in memory) with what is held.
 * A run's file is deleted as soon as it is read to its end, and every file on {@link #close}. Entries of one position
 * leave in the order they were added. Written here because no library on Maven Central that Baton uses offers a
 * disk-backed ordered buffer with a monotone watermark; it is a textbook external merge.
 */
final class OrderedSpool implements Closeable {

    /** What a drain hands over: the position and the bytes added for it. */
    interface Sink {
        void accept(long position, byte[] value) throws IOException;
    }

    private final Path directory;
    private final String name;
    private final long memoryBytes;
    private final TreeMap<Long, List<byte[]>> held = new TreeMap<>();
    private final List<Run> runs = new ArrayList<>();
    private long heldBytes;
    private long spilledBytes;
    private int runCount;
    private long size;

    /**
     * @param directory   where spill files go (created when the first one is needed)
     * @param name        file name prefix
     * @param memoryBytes bytes of values held in memory before they are spilled
     */
    OrderedSpool(Path directory, String name, long memoryBytes) {
        this.directory = directory;
        this.name = name;
        this.memoryBytes = memoryBytes;
    }

    void add(long position, byte[] value) throws IOException {
        held.computeIfAbsent(position, p -> new ArrayList<>(1)).add(value);
        heldBytes += value.length + 48L;
        size++;
        if (heldBytes > memoryBytes) {
            spill();
        }
    }

    /** Entries waiting (held and spilled). */
    long size() {
        return size;
    }

    /** Bytes written to spill files so far. */
    long spilledBytes() {
        return spilledBytes;
    }

    /** Hands over, in position order, every entry whose position is below {@code watermark}. */
    void drainBelow(long watermark, Sink sink) throws IOException {
        drain(watermark, false, sink);
    }

    /** Hands over everything left, in position order. */
    void drainAll(Sink sink) throws IOException {
        drain(Long.MAX_VALUE, true, sink);
    }

    private void drain(long watermark, boolean all, Sink sink) throws IOException {
        while (true) {
            Map.Entry<Long, List<byte[]>> first = held.isEmpty() ? null : held.firstEntry();
            Run run = null;
            for (Run r : runs) {
                if (run == null || r.position < run.position) {
                    run = r; // ties: the older run (spilled first) wins
                }
            }
            if (run == null && first == null) {
                return;
            }
            // for equal positions, spilled entries are older than held ones: they go first
            boolean fromRun = run != null && (first == null || run.position <= first.getKey());
            long position = fromRun ? run.position : first.getKey();
            if (!all && position >= watermark) {
                return;
            }
            if (fromRun) {
                sink.accept(run.position, run.value);
                size--;
                if (!run.advance()) {
                    runs.remove(run);
                }
            } else {
                held.pollFirstEntry();
                for (byte[] v : first.getValue()) {
                    heldBytes -= v.length + 48L;
                    size--;
                    sink.accept(position, v);
                }
            }
        }
    }

    private void spill() throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve(name + "-" + (runCount++) + ".run");
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file),
            1 << 16))) {
            for (Map.Entry<Long, List<byte[]>> e : held.entrySet()) {
                for (byte[] v : e.getValue()) {
                    out.writeLong(e.getKey());
                    out.writeInt(v.length);
                    out.write(v);
                    spilledBytes += v.length + 12L;
                }
            }
        }
        held.clear();
        heldBytes = 0;
        Run run = new Run(file);
        if (run.advance()) {
            runs.add(run);
        }
    }

    @Override
    public void close() {
        for (Run r : runs) {
            r.close();
        }
        runs.clear();
        held.clear();
    }

    /** One sorted run on disk, read front to back. */
    private static final class Run {
        private final Path file;
        private final DataInputStream in;
        long position;
        byte[] value;

        Run(Path file) throws IOException {
            this.file = file;
            this.in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
        }

        /** Reads the next entry; false (and the file deleted) at the end. */
        boolean advance() throws IOException {
            try {
                position = in.readLong();
            } catch (EOFException end) {
                close();
                return false;
            }
            value = new byte[in.readInt()];
            in.readFully(value);
            return true;
        }

        void close() {
            try {
                in.close();
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** For tests: the positions currently held in memory. */
    Iterator<Long> heldPositions() {
        return held.keySet().iterator();
    }
}
