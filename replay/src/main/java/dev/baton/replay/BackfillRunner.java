package dev.baton.replay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.config.BatonConfig;
import dev.baton.config.ConfigLoader;
import dev.baton.processor.ErrorCode;

/**
 * {@code baton backfill}: every line of the input goes, as it is, to the topology (JSON format on the run's own
 * topics), so the real decoder judges it and a rejected line's dead letter carries the raw line. A line longer than
 * the record limit ({@code baton.policy.max-record-bytes}, 1 MiB by default) is dead-lettered {@code OVERSIZED} here,
 * without being read whole or sent: its dead letter keeps its first 64 KiB. After the input, one settle control
 * record per session ends every wait. Snapshots are written as they are ready, in the input order of their hand-offs,
 * and the dead letters in input order (see {@link Replay}).
 */
public final class BackfillRunner {

    /** What an {@code OVERSIZED} dead letter keeps of the line (CONTRACT.md §4 "Bounded records"). */
    static final int OVERSIZED_EXCERPT_BYTES = 64 * 1024;

    private static final JsonFactory JSON = JsonFactory.builder()
        // the decoder judges nesting and number sizes; peeking only needs not to fail on them
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(Integer.MAX_VALUE).build())
        .build();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final BackfillOptions options;

    public BackfillRunner(BackfillOptions options) {
        this.options = options;
    }

    /** What the first fields of an input line say (null when absent or unreadable). */
    record Peek(String tenantId, String sessionId, String handoffId, boolean asOfSeq) {
        Peek(String tenantId, String sessionId, String handoffId) {
            this(tenantId, sessionId, handoffId, false);
        }

        String key() {
            return tenantId == null || sessionId == null ? null : tenantId + "/" + sessionId;
        }
    }

    /** One line of event JSON and where it is in the input: what {@link #run(LineSource)} replays. */
    public record EventLine(long lineNumber, Jsonl.Line line) {
    }

    /** Event lines in input order (line numbers increasing); null at the end. Other input formats convert to it. */
    public interface LineSource extends AutoCloseable {
        EventLine next() throws IOException;

        @Override
        void close() throws IOException;
    }

    /** The JSONL input file (or stdin): every non-blank line, never holding more than the record limit of one. */
    public static LineSource jsonlLines(Path input, int maxRecordBytes) throws IOException {
        Jsonl.Reader reader;
        try {
            reader = Jsonl.reader(input);
        } catch (NoSuchFileException e) {
            throw new AppFailure(ExitCodes.FAILED, "no such input file: " + input);
        }
        return new LineSource() {
            @Override
            public EventLine next() throws IOException {
                Jsonl.Line line;
                while ((line = reader.next(maxRecordBytes, OVERSIZED_EXCERPT_BYTES)) != null) {
                    if (!line.truncated() && Jsonl.isBlank(line.bytes())) {
                        continue; // not a record (a trailing empty line, say)
                    }
                    return new EventLine(reader.lineNumber(), line);
                }
                return null;
            }

            @Override
            public void close() throws IOException {
                reader.close();
            }
        };
    }

    public int run() throws IOException {
        Path input = options.input();
        if (!Jsonl.isStdio(input) && !Files.isRegularFile(input)) {
            throw new AppFailure(ExitCodes.FAILED, "no such input file: " + input);
        }
        Map<String, String> base = baseConfig();
        int maxRecordBytes = maxRecordBytes(base);
        try (LineSource lines = jsonlLines(input, maxRecordBytes)) {
            return run(lines, Jsonl.countRecords(input), base, maxRecordBytes);
        }
    }

    private static int maxRecordBytes(Map<String, String> base) {
        BatonConfig.Builder builder = BatonConfig.builder();
        base.forEach(builder::set);
        return builder.build().defaultPolicy().maxRecordBytes();
    }

    /**
     * Replays event lines (from the JSONL input, or converted from another format) and writes the results.
     *
     * @param totalLines the number of lines for the progress bar, or -1 when unknown
     */
    public int run(LineSource lines, long totalLines) throws IOException {
        Map<String, String> base = baseConfig();
        return run(lines, totalLines, base, maxRecordBytes(base));
    }

    private int run(LineSource lines, long totalLines, Map<String, String> base, int maxRecordBytes)
        throws IOException {
        long started = System.nanoTime();
        Logging.quietForEmbeddedRun();
        boolean embedded = options.bootstrapServers() == null;
        String runName = embedded ? "baton-backfill" : "baton-backfill-" + UUID.randomUUID().toString().substring(0, 8);
        say(embedded ? "starting Kafka and the Baton topology in this process…"
            : "replaying on " + options.bootstrapServers() + " (topics " + runName + ".*)…");

        Path output = options.output();
        // written beside the output and renamed at the end: a failed run never leaves half a file behind
        // (the prefix keeps the name's ending, so a .gz output is compressed from the start)
        Path temporary = Jsonl.isStdio(output) ? output
            : output.toAbsolutePath().resolveSibling(".partial-" + output.getFileName());
        Replay.Result result;
        try (Replay replay = Replay.open(new Replay.Settings(options.bootstrapServers(), base, "json", null, runName, 4));
             Progress progress = options.noProgress() ? null : Progress.onStderr("backfill", totalLines, "records");
             Jsonl.Writer writer = Jsonl.writer(temporary);
             Jsonl.Writer deadWriter = options.deadLetters() == null ? null : Jsonl.writer(options.deadLetters())) {
            Replay.Sink sink = new Replay.Sink() {
                @Override
                public void snapshot(long position, byte[] value) throws IOException {
                    writer.write(value);
                }

                @Override
                public void deadLetter(long position, Replay.DeadLetter dl) throws IOException {
                    if (deadWriter != null) {
                        deadWriter.write(deadLetterLine(position, dl));
                    }
                }
            };
            result = replay.run(() -> item(lines.next(), maxRecordBytes), BackfillRunner::snapshotIdOf, sink,
                options.timeout(), n -> {
                    if (progress != null) {
                        progress.update(n);
                    }
                });
        } catch (IOException | RuntimeException e) {
            if (!Jsonl.isStdio(output)) {
                Files.deleteIfExists(temporary);
            }
            throw e;
        }
        if (!Jsonl.isStdio(output)) {
            Files.move(temporary, output, StandardCopyOption.REPLACE_EXISTING);
        }
        return report(result, output, started);
    }

    /** What the replay sends for one line: the line as it is, or, over the limit, an OVERSIZED dead letter. */
    static Replay.Item item(EventLine event, int maxRecordBytes) {
        if (event == null) {
            return null;
        }
        Jsonl.Line line = event.line();
        Peek peek = peek(line.bytes());
        String key = peek.key();
        byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
        if (line.truncated()) {
            return new Replay.Reject(event.lineNumber(), new Replay.DeadLetter(ErrorCode.OVERSIZED.name(),
                String.format(Locale.ROOT, "line has %,d bytes; the limit is %,d (the dead letter keeps the first "
                    + "%,d)", line.size(), maxRecordBytes, line.bytes().length),
                keyBytes, line.bytes(), line.size()));
        }
        String snapshotId = key != null && peek.handoffId() != null ? key + "/" + peek.handoffId() : null;
        return new Replay.Send(event.lineNumber(), keyBytes, line.bytes(), snapshotId, peek.asOfSeq());
    }

    private int report(Replay.Result result, Path output, long started) {
        long seconds = Math.round((System.nanoTime() - started) / 1e9);
        Map<String, Double> counters = result.counters();
        say(String.format(Locale.ROOT, "%,d records of %,d sessions → %,d snapshots (%s), %,d dead letters%s, "
                + "%,.0f duplicate turns, %,.0f duplicate hand-offs; %d s", result.records(), result.sessions(),
            result.snapshots(), Jsonl.isStdio(output) ? "stdout" : output.toString(), result.deadLetterCount(),
            result.deadLetters().isEmpty() ? "" : " " + result.deadLetters(),
            counters.getOrDefault("duplicate-turns-total", 0.0), counters.getOrDefault("duplicate-handoffs-total", 0.0),
            seconds));
        if (result.unmatchedSnapshots() > 0) {
            say(result.unmatchedSnapshots() + " snapshots matched no hand-off of the input and were not written");
        }
        if (result.unplaced() > 0) {
            say(result.unplaced() + " dead letters name no input record (e.g. a failure outside a record)");
        }
        if (!result.complete()) {
            long duplicates = Math.round(counters.getOrDefault("duplicate-handoffs-total", 0.0));
            say("incomplete: " + Math.max(0, result.noOutput() - duplicates)
                + " hand-offs got neither a snapshot nor a dead letter");
            return ExitCodes.INCOMPLETE;
        }
        return ExitCodes.OK;
    }

    /** A dead letter as a line of the --dead-letters file: {error_code, error_message, source_line, record}. */
    static byte[] deadLetterLine(long position, Replay.DeadLetter dl) throws IOException {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("error_code", dl.code());
        node.put("error_message", dl.message());
        node.put("source_line", position == Replay.NO_POSITION ? -1 : position);
        node.put("record", dl.value() == null ? null : new String(dl.value(), StandardCharsets.UTF_8));
        return MAPPER.writeValueAsBytes(node);
    }

    /** Kafka and baton.* settings from --config and BATON_* (the replay itself decides topics and format). */
    private Map<String, String> baseConfig() {
        BatonConfig.Builder builder = ConfigLoader.builder(options.config(), System.getenv());
        // the replay's own choices: JSON lines on private topics (the registry is not needed)
        builder.set(BatonConfig.FORMAT, "json");
        BatonConfig config = ConfigLoader.build(builder);
        Map<String, String> out = new HashMap<>();
        config.asMap().forEach((k, v) -> {
            String origin = config.origin(k);
            if (origin != null && !origin.startsWith("built-in default")) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** The record key backfill gives a line ({@code tenant_id/session_id}), or null when the line names none. */
    public static String sessionKeyOf(byte[] line) {
        return peek(line).key();
    }

    /** tenant_id, session_id, handoff.handoff_id and whether handoff.as_of_seq is set, read without a tree. */
    static Peek peek(byte[] line) {
        String tenant = null;
        String session = null;
        String handoff = null;
        boolean asOf = false;
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return new Peek(null, null, null);
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_STRING && name.equals("tenant_id")) {
                    tenant = p.getText();
                } else if (value == JsonToken.VALUE_STRING && name.equals("session_id")) {
                    session = p.getText();
                } else if (value == JsonToken.START_OBJECT && name.equals("handoff")) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String field = p.currentName();
                        JsonToken v = p.nextToken();
                        if (v == JsonToken.VALUE_STRING && field.equals("handoff_id")) {
                            handoff = p.getText();
                        } else if (field.equals("as_of_seq")) {
                            asOf = v != JsonToken.VALUE_NULL;
                            p.skipChildren();
                        } else {
                            p.skipChildren();
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // the topology's decoder will say what is wrong with it (MALFORMED and the like)
        }
        return new Peek(tenant, session, handoff, asOf);
    }

    static String snapshotIdOf(byte[] snapshotJson) {
        try (JsonParser p = JSON.createParser(snapshotJson)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    if (name.equals("snapshot_id")) {
                        return p.getText();
                    }
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            // fall through
        }
        throw new AppFailure(ExitCodes.FAILED, "the topology wrote a snapshot without snapshot_id");
    }

    private static void say(String message) {
        System.err.println("backfill: " + message);
    }
}
