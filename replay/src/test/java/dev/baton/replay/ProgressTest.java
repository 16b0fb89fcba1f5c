package dev.baton.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class ProgressTest {

    private final AtomicLong clock = new AtomicLong();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String output() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldShowPercentageRateAndEtaWhenTheTotalIsKnown() {
        Progress progress = new Progress("backfill", 1000, "events", out, false, clock::get);

        String line = progress.render(250, 2_000_000_000L, false);

        assertThat(line).isEqualTo("backfill:  25.0%  250/1,000 events  125 events/s  ETA 0:06");
    }

    @Test
    void shouldShowCountAndRateOnlyWhenTheTotalIsUnknown() {
        Progress progress = new Progress("backfill", -1, "events", out, false, clock::get);

        assertThat(progress.render(12_345, 1_000_000_000L, false)).isEqualTo("backfill: 12,345 events  12,345 events/s");
    }

    @Test
    void shouldPrintAPlainLineEveryFiveSecondsWhenNotATerminal() {
        Progress progress = new Progress("backfill", 100, "events", out, false, clock::get);

        clock.set(1_000_000_000L);
        progress.advance(10);              // 1 s: too early
        clock.set(5_000_000_000L);
        progress.advance(10);              // 5 s: a line
        clock.set(6_000_000_000L);
        progress.advance(10);              // 6 s: too early again
        progress.finish();

        assertThat(output()).doesNotContain("\r");
        assertThat(output().lines()).containsExactly(
                "backfill:  20.0%  20/100 events  4 events/s  ETA 0:20",
                "backfill:  30.0%  30/100 events  5 events/s  in 0:06");
    }

    @Test
    void shouldRedrawInPlaceWithABarOnATerminal() {
        Progress progress = new Progress("backfill", 100, "events", out, true, clock::get);

        clock.set(200_000_000L);
        progress.update(50);
        clock.set(400_000_000L);
        progress.update(100);
        progress.finish();

        assertThat(output()).startsWith("\rbackfill  [############------------]  50.0%  50/100 events");
        assertThat(output()).contains("\rbackfill  [########################] 100.0%  100/100 events");
        assertThat(output()).endsWith("in 0:00\n");
        assertThat(output().chars().filter(c -> c == '\n').count()).isEqualTo(1);
    }

    @Test
    void shouldFinishOnlyOnce() {
        Progress progress = new Progress("demo", 3, "snapshots", out, false, clock::get);
        progress.update(3);

        progress.finish();
        progress.close();

        assertThat(output().lines()).hasSize(1);
    }

    @Test
    void shouldFormatDurations() {
        assertThat(Progress.duration(7)).isEqualTo("0:07");
        assertThat(Progress.duration(750)).isEqualTo("12:30");
        assertThat(Progress.duration(3723)).isEqualTo("1:02:03");
    }
}
