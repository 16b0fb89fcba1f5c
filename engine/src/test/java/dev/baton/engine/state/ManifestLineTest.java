package dev.baton.engine.state;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ManifestLineTest {
    @Test
    void shouldCountTheDecimalDigitsOfEveryMagnitude() {
        long p = 1; // 10^k for k = 0..18, and the numbers around each
        for (int k = 0; k <= 18; k++, p = k <= 18 ? p * 10 : p) {
            for (long v : new long[]{p - 1, p, p + 1, p * 2 - 1}) {
                assertThat(ManifestLine.digits(v)).as("digits of %d", v).isEqualTo(Long.toString(v).length());
            }
        }
        assertThat(ManifestLine.digits(Long.MAX_VALUE)).isEqualTo(19);
        assertThat(ManifestLine.digits(0)).isEqualTo(1);
    }
}
