package dev.baton.replay;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The replay's ring of records sent and not yet committed, and how a dead letter is kept in a reorder buffer. */
class InFlightWindowTest {

    @Test
    void shouldFindEveryHeldRecordByOffsetWhileTheRingGrowsAndDrains() {
        InFlightWindow w = new InFlightWindow();
        w.baseOffset = 10;
        for (int i = 0; i < 1500; i++) {
            w.add(new InFlightWindow.Entry(i, null, false, 1)); // past the first ring's 1,024 slots
            if (i % 3 == 0) assertThat(w.poll().position).isEqualTo(w.baseOffset - 11);
        }
        assertThat(w.size()).isEqualTo(1000);
        assertThat(w.first().position).isEqualTo(500);
        assertThat(w.at(w.baseOffset).position).isEqualTo(500);
        assertThat(w.at(w.baseOffset + 999).position).isEqualTo(1499);
        assertThat(w.at(w.baseOffset - 1)).isNull();
        assertThat(w.at(w.baseOffset + 1000)).isNull();
    }

    @Test
    void shouldReadBackADeadLetterAsItWasWritten() {
        Replay.ReportedDeadLetter dl = new Replay.ReportedDeadLetter("OVERSIZED", "too large: 2 MiB",
                "acme/s1".getBytes(StandardCharsets.UTF_8), new byte[] {0, 1, 2}, 2_097_152);
        Replay.ReportedDeadLetter back = DeadLetterSpoolCodec.decode(DeadLetterSpoolCodec.encode(dl));
        assertThat(back.code()).isEqualTo(dl.code());
        assertThat(back.message()).isEqualTo(dl.message());
        assertThat(back.key()).isEqualTo(dl.key());
        assertThat(back.value()).isEqualTo(dl.value());
        assertThat(back.originalSize()).isEqualTo(dl.originalSize());

        Replay.ReportedDeadLetter empty = DeadLetterSpoolCodec.decode(DeadLetterSpoolCodec.encode(
                new Replay.ReportedDeadLetter("INTERNAL", "x", null, null, 0)));
        assertThat(empty.key()).isNull();
        assertThat(empty.value()).isNull();
    }
}
