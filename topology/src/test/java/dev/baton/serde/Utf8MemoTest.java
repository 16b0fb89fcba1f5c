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
            // far behind the last one found: found by a scan of the whole memo
            assertThat(memo.get(strings[2])).isEqualTo(strings[2].getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void shouldFindStringsWhoseGroupsComeInAnotherOrder() {
        // The content hash keeps the top-level fields in name order (brick, call_ledger, ..., messages), the Avro
        // encoder meets them in schema order (brick, messages, ..., call_ledger): each group in order, the groups not.
        String brick = "brick ".repeat(10);
        String[] ledger = new String[64];
        String[] messages = new String[1_000];
        for (int i = 0; i < ledger.length; i++) ledger[i] = ("ledger entry " + i + " ").repeat(3);
        for (int i = 0; i < messages.length; i++) messages[i] = ("message " + i + " ").repeat(4);
        try (Utf8Memo memo = new Utf8Memo()) {
            memo.utf8(brick);
            for (String s : ledger) memo.utf8(s);
            for (String s : messages) memo.utf8(s);

            assertThat(memo.get(brick)).isNotNull();
            for (String s : messages) assertThat(memo.get(s)).as(s).isEqualTo(s.getBytes(StandardCharsets.UTF_8));
            for (String s : ledger) assertThat(memo.get(s)).as(s).isEqualTo(s.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void shouldStopScanningTheWholeMemoAfterItsBound() {
        String[] strings = new String[2_000];
        for (int i = 0; i < strings.length; i++) strings[i] = ("scattered " + i + " ").repeat(4);
        try (Utf8Memo memo = new Utf8Memo()) {
            for (String s : strings) memo.utf8(s);
            // backwards, 50 apart: each look-up is far from where the last one left the cursor and needs a scan
            int found = 0;
            int lookUps = 0;
            for (int i = strings.length - 50; i >= 0; i -= 50, lookUps++) {
                if (memo.get(strings[i]) != null) found++;
            }
            assertThat(lookUps).isGreaterThan(Utf8Memo.MAX_SCANS);
            assertThat(found).isEqualTo(Utf8Memo.MAX_SCANS); // the rest are encoded again by their writer
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
