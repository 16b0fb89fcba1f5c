package dev.baton.engine.state;

import dev.baton.engine.narration.Escaping;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class DigestLineTest {
    private static final String[] PIECES = {"a", "b", " ", "\r", "\n", "\r\n", "\t", "é", "\uD83D\uDE00", "[", "\u2003"};

    @Test
    void shouldExcerptFromABoundedPrefixAsFromTheWholeText() {
        Random r = new Random(8);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            // long blank runs before, inside and after the words: the cases a prefix could get wrong
            int blanks = r.nextInt(4) == 0 ? r.nextInt(600) : 0;
            sb.append(" ".repeat(blanks));
            int len = r.nextInt(700);
            for (int k = 0; k < len; k++) {
                if (r.nextInt(50) == 0) sb.append(r.nextBoolean() ? " ".repeat(r.nextInt(400)) : "\r\n".repeat(r.nextInt(200)));
                else sb.append(PIECES[r.nextInt(r.nextBoolean() ? 2 : PIECES.length)]);
            }
            String text = sb.toString();
            String expected = Escaping.excerpt(Escaping.oneLine(text).strip(), DigestLine.EXCERPT_CHARS);
            assertThat(Escaping.excerpt(DigestLine.excerptSource(text), DigestLine.EXCERPT_CHARS))
                    .as("text %d", i).isEqualTo(expected);
        }
    }
}
