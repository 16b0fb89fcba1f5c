package dev.baton.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay's reorder buffer: input order out, whatever order in, within a memory bound. */
class OrderedSpoolTest {

    @TempDir
    Path dir;

    @Test
    void shouldHandOverInPositionOrderBelowTheWatermarkAndSpillPastTheMemoryBound() throws IOException {
        List<Long> positions = new ArrayList<>();
        for (long p = 0; p < 5_000; p++) {
            positions.add(p);
        }
        Collections.shuffle(positions, new Random(7));
        List<Long> out = new ArrayList<>();
        try (OrderedSpool spool = new OrderedSpool(dir, "t", 8 * 1024)) {
            java.util.TreeSet<Long> notYetAdded = new java.util.TreeSet<>(positions);
            for (int i = 0; i < positions.size(); i++) {
                long p = positions.get(i);
                spool.add(p, ("value-" + p).getBytes(StandardCharsets.UTF_8));
                notYetAdded.remove(p);
                if (i % 500 == 499) {
                    // the watermark a replay would give: nothing below it is still to come
                    long below = notYetAdded.isEmpty() ? Long.MAX_VALUE : notYetAdded.first();
                    spool.drainBelow(below, (pos, v) -> {
                        assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("value-" + pos);
                        assertThat(pos).isLessThan(below);
                        out.add(pos);
                    });
                }
            }
            assertThat(spool.spilledBytes()).as("8 KiB of memory cannot hold 5,000 values").isPositive();
            spool.drainAll((pos, v) -> out.add(pos));
            assertThat(spool.size()).isZero();
        }
        List<Long> sorted = new ArrayList<>(positions);
        Collections.sort(sorted);
        assertThat(out).isEqualTo(sorted);
        try (var files = Files.list(dir)) {
            assertThat(files).as("spill files are deleted once read").isEmpty();
        }
    }

    @Test
    void shouldNeverHandOverAnEntryAtOrAboveTheWatermark() throws IOException {
        try (OrderedSpool spool = new OrderedSpool(dir, "w", 64)) {
            for (long p : new long[] {9, 3, 12, 5, 1, 10}) {
                spool.add(p, new byte[40]);
            }
            List<Long> out = new ArrayList<>();
            spool.drainBelow(10, (pos, v) -> out.add(pos));
            assertThat(out).containsExactly(1L, 3L, 5L, 9L);
            spool.add(11, new byte[1]);
            spool.drainBelow(12, (pos, v) -> out.add(pos));
            assertThat(out).containsExactly(1L, 3L, 5L, 9L, 10L, 11L);
            assertThat(spool.size()).isEqualTo(1);
        }
    }

    @Test
    void shouldKeepTheOrderOfEntriesOfOnePositionAcrossSpills() throws IOException {
        try (OrderedSpool spool = new OrderedSpool(dir, "s", 100)) {
            for (int i = 0; i < 20; i++) {
                spool.add(4, new byte[] {(byte) i});
            }
            List<Integer> out = new ArrayList<>();
            spool.drainAll((pos, v) -> out.add((int) v[0]));
            assertThat(out).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
        }
    }
}
