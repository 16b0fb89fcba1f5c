package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A backfill line of 200 MiB (and one of 17 MiB) is dead-lettered {@code OVERSIZED} without being read whole: the
 * backfill runs in a child JVM whose whole heap ({@value #HEAP}) is smaller than the 200 MiB line (209,715,200 bytes of
 * text plus the event around it), so reading that line into one array would end in an OutOfMemoryError. (The embedded
 * broker and the topology alone need 80–100 MiB: a backfill of two lines fails with -Xmx80m and runs with 100m, but
 * not always on a loaded 2-core CI machine, so the heap leaves 60 MiB of room and the line is twice the old 100 MiB.)
 * The input file is written in chunks, never held by the test either. The session around the huge lines still gets its snapshot, and the dead letters keep the first 64 KiB and
 * the original size. {@link BackfillPoisonIT} covers the same lines among 10,000+ other bad ones, in this JVM.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BackfillHugeLineIT {

    private static final String HEAP = "-Xmx160m";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void shouldDeadLetterA200MiBLineAsOversizedWithAHeapSmallerThanTheLine() throws Exception {
        Path input = dir.resolve("huge.jsonl");
        long big = 200L << 20;
        long medium = 17L << 20;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input), 1 << 16)) {
            line(out, "{\"event_id\":\"e0\",\"tenant_id\":\"acme\",\"session_id\":\"s\","
                    + "\"occurred_at\":\"2026-12-02T00:00:00Z\",\"turn\":{\"seq\":0,\"agent\":\"user\",\"role\":\"USER\","
                    + "\"text\":\"before the huge lines\"}}");
            hugeTurn(out, "e-big", big);
            hugeTurn(out, "e-medium", medium);
            line(out, "{\"event_id\":\"e1\",\"tenant_id\":\"acme\",\"session_id\":\"s\","
                    + "\"occurred_at\":\"2026-12-02T00:00:01Z\",\"turn\":{\"seq\":1,\"agent\":\"qwen\","
                    + "\"role\":\"ASSISTANT\",\"text\":\"after the huge lines\"}}");
            line(out, "{\"event_id\":\"e2\",\"tenant_id\":\"acme\",\"session_id\":\"s\","
                    + "\"occurred_at\":\"2026-12-02T00:00:02Z\",\"handoff\":{\"handoff_id\":\"h1\","
                    + "\"to_agent\":\"claude\",\"target\":\"LOCAL\"}}");
        }
        assertThat(Files.size(input)).isGreaterThan(big + medium);

        Path output = dir.resolve("out.jsonl");
        Path dead = dir.resolve("dead.jsonl");
        Path log = dir.resolve("backfill.log");
        Process process = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                HEAP, "-XX:+ExitOnOutOfMemoryError", "-Dlog4j2.shutdownHookEnabled=false",
                "-cp", System.getProperty("java.class.path"), BatonCommand.class.getName(), "backfill",
                "-i", input.toString(), "-o", output.toString(), "--dead-letters", dead.toString(), "--no-progress")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long started = System.nanoTime();
        try {
            assertThat(process.waitFor(4, TimeUnit.MINUTES)).as("backfill finished").isTrue();
        } finally {
            process.destroyForcibly();
        }
        String text = Files.readString(log);
        assertThat(process.exitValue()).as(tail(text)).isZero();
        assertThat(text).doesNotContain("OutOfMemoryError");

        List<String> snapshots = Files.readAllLines(output);
        assertThat(snapshots).hasSize(1);
        JsonNode snapshot = JSON.readTree(snapshots.get(0));
        assertThat(snapshot.get("turn_count").asInt()).isEqualTo(2);
        assertThat(snapshot.toString()).contains("before the huge lines").contains("after the huge lines");

        List<String> deadLetters = Files.readAllLines(dead);
        assertThat(deadLetters).hasSize(2);
        long[] sizes = new long[] {big, medium};
        for (int i = 0; i < 2; i++) {
            JsonNode d = JSON.readTree(deadLetters.get(i));
            assertThat(d.get("error_code").asText()).isEqualTo("OVERSIZED");
            assertThat(d.get("source_line").asLong()).isEqualTo(2 + i);
            assertThat(d.get("record").asText()).hasSizeLessThanOrEqualTo(64 * 1024)
                    .startsWith("{\"event_id\":\"e-");
            assertThat(d.get("error_message").asText()).contains(String.format(java.util.Locale.ROOT, "%,d",
                    sizes[i] + hugeTurnEnvelope(i == 0 ? "e-big" : "e-medium").length));
        }
        System.out.printf("backfill with %s: a %,d-byte and a %,d-byte line dead-lettered OVERSIZED, 1 snapshot, "
                + "%.1f s%n", HEAP, big, medium, (System.nanoTime() - started) / 1e9);
    }

    private static void line(OutputStream out, String json) throws IOException {
        out.write(json.getBytes(StandardCharsets.UTF_8));
        out.write('\n');
    }

    /** The bytes of a turn line around its text. */
    private static byte[] hugeTurnEnvelope(String id) {
        return ("{\"event_id\":\"" + id + "\",\"tenant_id\":\"acme\",\"session_id\":\"s\","
                + "\"occurred_at\":\"2026-12-02T00:00:00Z\",\"turn\":{\"seq\":1,\"agent\":\"qwen\",\"role\":\"ASSISTANT\","
                + "\"text\":\"\"}}").getBytes(StandardCharsets.UTF_8);
    }

    /** A turn line whose text has {@code textBytes} bytes, written 64 KiB at a time. */
    private static void hugeTurn(OutputStream out, String id, long textBytes) throws IOException {
        byte[] envelope = hugeTurnEnvelope(id);
        int split = envelope.length - 3; // before the closing "}}
        out.write(envelope, 0, split);
        byte[] chunk = new byte[1 << 16];
        Arrays.fill(chunk, (byte) 'x');
        for (long left = textBytes; left > 0; left -= chunk.length) {
            out.write(chunk, 0, (int) Math.min(chunk.length, left));
        }
        out.write(envelope, split, envelope.length - split);
        out.write('\n');
    }

    private static String tail(String s) {
        return s.length() > 20_000 ? s.substring(s.length() - 20_000) : s;
    }
}
