package dev.baton.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonlTest {

    @TempDir
    Path dir;

    @Test
    void shouldRoundTripPlainAndGzipFilesChosenByName() throws IOException {
        for (String name : List.of("out.jsonl", "out.jsonl.gz", "OUT.JSONL.GZ")) {
            Path file = dir.resolve(name);
            try (Jsonl.Writer writer = Jsonl.writer(file)) {
                writer.write("{\"a\":1}");
                writer.write("{\"b\":\"é\"}".getBytes(StandardCharsets.UTF_8));
            }

            assertThat(readAll(file)).as(name).containsExactly("{\"a\":1}", "{\"b\":\"é\"}");
            byte[] head = Files.readAllBytes(file);
            boolean gzipMagic = (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
            assertThat(gzipMagic).as(name).isEqualTo(name.toLowerCase().endsWith(".gz"));
        }
    }

    @Test
    void shouldWriteByteIdenticalGzipAcrossRuns() throws Exception {
        Path first = dir.resolve("a.jsonl.gz");
        Path second = dir.resolve("b.jsonl.gz");
        try (Jsonl.Writer writer = Jsonl.writer(first)) {
            writer.write("{\"x\":1}");
        }
        // a gzip header's timestamp counts seconds: once the clock is in a later second, one would differ
        long writtenIn = Instant.now().getEpochSecond();
        Awaitility.await("the clock's next second").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> Instant.now().getEpochSecond() > writtenIn);
        try (Jsonl.Writer writer = Jsonl.writer(second)) {
            writer.write("{\"x\":1}");
        }

        assertThat(Files.readAllBytes(second)).isEqualTo(Files.readAllBytes(first));
    }

    @Test
    void shouldNumberLinesStripCrLfAndKeepBlankLinesAndInvalidUtf8AsBytes() throws IOException {
        Path file = dir.resolve("in.jsonl");
        Files.write(file, new byte[] {'{', '}', '\r', '\n', '\n', (byte) 0xC3, (byte) 0x28, '\n', 'x'});

        try (Jsonl.Reader reader = Jsonl.reader(file)) {
            assertThat(reader.next()).containsExactly('{', '}');
            assertThat(reader.lineNumber()).isEqualTo(1);
            assertThat(reader.next()).isEmpty();
            assertThat(reader.next()).containsExactly((byte) 0xC3, (byte) 0x28);
            assertThat(reader.next()).containsExactly('x');
            assertThat(reader.lineNumber()).isEqualTo(4);
            assertThat(reader.next()).isNull();
        }
        assertThat(Jsonl.countLines(file)).isEqualTo(4);
    }

    @Test
    void shouldReadGzipWrittenByOtherTools() throws IOException {
        Path file = dir.resolve("in.jsonl.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write("{\"a\":1}\n{\"a\":2}\n".getBytes(StandardCharsets.UTF_8));
        }

        assertThat(readAll(file)).containsExactly("{\"a\":1}", "{\"a\":2}");
    }

    @Test
    void shouldCreateTheOutputDirectory() throws IOException {
        Path file = dir.resolve("nested/deeper/out.jsonl");
        try (Jsonl.Writer writer = Jsonl.writer(file)) {
            writer.write("{}");
        }
        assertThat(file).hasContent("{}");
    }

    private static List<String> readAll(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Jsonl.Reader reader = Jsonl.reader(file)) {
            byte[] line;
            while ((line = reader.next()) != null) {
                lines.add(new String(line, StandardCharsets.UTF_8));
            }
        }
        return lines;
    }

    @Test
    void shouldReadALineOverTheLimitAsItsFirstBytesAndItsSizeWithoutHoldingIt(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("big.jsonl");
        byte[] big = new byte[3 * 1024 * 1024 + 17];
        java.util.Arrays.fill(big, (byte) 'x');
        try (var out = Files.newOutputStream(file)) {
            out.write("{\"a\":1}\n".getBytes(StandardCharsets.UTF_8));
            out.write(big);
            out.write("\r\n".getBytes(StandardCharsets.UTF_8));
            out.write("1234567890\r\n".getBytes(StandardCharsets.UTF_8)); // exactly the limit, with CRLF
            out.write("12345678901".getBytes(StandardCharsets.UTF_8));     // one over, no final new line
        }
        try (Jsonl.Reader reader = Jsonl.reader(file)) {
            Jsonl.Line first = reader.next(1024 * 1024, 100);
            assertThat(first.truncated()).isFalse();
            assertThat(new String(first.bytes(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
            Jsonl.Line second = reader.next(1024 * 1024, 100);
            assertThat(second.truncated()).isTrue();
            assertThat(second.size()).isEqualTo(big.length);
            assertThat(second.bytes()).hasSize(100).containsOnly((byte) 'x');
            assertThat(reader.lineNumber()).isEqualTo(2);
            Jsonl.Line third = reader.next(10, 4);
            assertThat(third.truncated()).isFalse();
            assertThat(new String(third.bytes(), StandardCharsets.UTF_8)).isEqualTo("1234567890");
            Jsonl.Line fourth = reader.next(10, 4);
            assertThat(fourth.truncated()).isTrue();
            assertThat(fourth.size()).isEqualTo(11);
            assertThat(new String(fourth.bytes(), StandardCharsets.UTF_8)).isEqualTo("1234");
            assertThat(reader.next(10, 4)).isNull();
            assertThat(reader.lineNumber()).isEqualTo(4);
        }
    }
}
