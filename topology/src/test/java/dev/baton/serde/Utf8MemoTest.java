package dev.baton.serde;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class Utf8MemoTest {

    @Test
    void shouldGiveEachLongStringsUtf8OnceWhileOpen() {
        String s = "café \uD800 数据 ".repeat(10);
        try (Utf8Memo memo = new Utf8Memo()) {
            byte[] first = memo.utf8(s);
            assertThat(first).isEqualTo(s.getBytes(StandardCharsets.UTF_8)); // a lone surrogate as '?', as Avro writes it
            assertThat(memo.get(s)).isSameAs(first);
            assertThat(memo.get(s)).isSameAs(first);
            assertThat(memo.get(new String(s))).isNull(); // by identity: an equal string is another key
        }
    }

    @Test
    void shouldFindStringsMetInNearlyTheOrderTheyWereKept() {
        String[] strings = new String[100];
        for (int i = 0; i < strings.length; i++) strings[i] = ("string " + i + " ").repeat(5);
        try (Utf8Memo memo = new Utf8Memo()) {
            for (String s : strings) memo.utf8(s);
            // the second before the first, then a few skipped, then in order
            assertThat(memo.get(strings[1])).isEqualTo(strings[1].getBytes(StandardCharsets.UTF_8));
            assertThat(memo.get(strings[0])).isEqualTo(strings[0].getBytes(StandardCharsets.UTF_8));
            for (int i = 5; i < strings.length; i++) {
                assertThat(memo.get(strings[i])).as("string %d", i).isEqualTo(strings[i].getBytes(StandardCharsets.UTF_8));
            }
            // far behind the last one found: not looked for (its writer encodes it again)
            assertThat(memo.get(strings[2])).isNull();
        }
    }

    @Test
    void shouldForgetEveryStringWhenClosed() {
        String s = "x".repeat(100);
        Utf8Memo memo = new Utf8Memo();
        memo.utf8(s);
        assertThat(memo.size()).isEqualTo(1);
        memo.close();
        assertThat(memo.size()).isZero();
        assertThat(memo.get(s)).isNull();
    }

    @Test
    void shouldKeepNeitherShortStringsNorMoreThanItsBounds() throws Exception {
        try (Utf8Memo memo = new Utf8Memo()) {
            String shortOne = "z".repeat(Utf8Memo.MIN_CHARS - 1);
            assertThat(memo.utf8(shortOne)).isEqualTo(shortOne.getBytes(StandardCharsets.UTF_8));
            assertThat(memo.size()).isZero();

            for (int i = 0; i < Utf8Memo.MAX_ENTRIES + 10; i++) memo.utf8(("entry " + i + " ").repeat(4));
            assertThat(memo.size()).isEqualTo(Utf8Memo.MAX_ENTRIES);
        }
        try (Utf8Memo memo = new Utf8Memo()) {
            String big = "b".repeat(Utf8Memo.MAX_BYTES / 2 + 1);
            memo.utf8(big);
            memo.utf8(new String(big)); // over the byte bound: encoded, not kept
            assertThat(memo.size()).isEqualTo(1);
        }
    }
}
