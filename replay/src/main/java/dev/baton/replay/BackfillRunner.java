package dev.baton.replay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
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
import dev.baton.avro.ContextSnapshot;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.model.SessionKey;
import dev.baton.egress.SnapshotHash;
import dev.baton.serde.AvroJson;
import dev.baton.serde.StrictUtf8;

/**
 * {@code baton backfill}: every line of the input goes, as it is, to the topology (JSON format on the run's own
 * topics), so the real decoder judges it and a rejected line's dead letter carries the raw line. A line longer than
 * the record limit ({@code baton.policy.max-record-bytes}, 1 MiB by default) is dead-lettered {@code OVERSIZED} here,
 * without being read whole or sent: its dead letter keeps its first 64 KiB. After the input, one settle control
 * record per session ends every wait. Snapshots are written as they are ready, in the input order of their hand-offs,
 * and the dead letters in input order (see {@link Replay}).
 */
public final class BackfillRunner {

    /** What an {@code OVERSIZED} dead letter keeps of the line (docs/contract.md, "Bounded records"). */
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

    /**
     * What the fields of an input line say that the replay needs (null or -1 when absent or unreadable): the
     * session, a hand-off's id and whether it has {@code as_of_seq}, and for a turn what synthetic triggers look at.
     */
    record Peek(String tenantId, String sessionId, String handoffId, boolean asOfSeq, String occurredAt, long seq,
                String agent, String role, boolean hasError, boolean receipt, String snapshotId) {
        Peek(String tenantId, String sessionId, String handoffId) {
            this(tenantId, sessionId, handoffId, false, null, -1, null, null, false, false, null);
        }

        /**
         * The key a producer sends for these fields, valid ids or not (null when one is absent); for a receipt, the
         * {@code tenant/session} its {@code snapshot_id} names.
         */
        String key() {
            if (receipt) {
                int first = snapshotId == null ? -1 : snapshotId.indexOf('/');
                int second = first < 0 ? -1 : snapshotId.indexOf('/', first + 1);
                return second < 0 ? null : snapshotId.substring(0, second);
            }
            return tenantId == null || sessionId == null ? null : SessionKey.format(tenantId, sessionId);
        }

        boolean isTurn() {
            return seq >= 0;
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
        PhaseClock.mark("jvm-and-cli");
        Path input = options.input();
        if (!Jsonl.isStdio(input) && !Files.isRegularFile(input)) {
            throw new AppFailure(ExitCodes.FAILED, "no such input file: " + input);
        }
        Map<String, String> base = baseConfig();
        // the broker starts beside the rest (counting the input's lines reads all of it)
        try (BrokerStart broker = startBrokerIfInProcess()) {
            int maxRecordBytes = maxRecordBytes(base);
            try (LineSource lines = jsonlLines(input, maxRecordBytes)) {
                return run(lines, Jsonl.countRecords(input), base, maxRecordBytes, broker);
            }
        }
    }

    /** The in-process broker, starting now; null when the run uses {@code --bootstrap-servers}. */
    private BrokerStart startBrokerIfInProcess() {
        return options.bootstrapServers() == null ? BrokerStart.begin() : null;
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
        try (BrokerStart broker = startBrokerIfInProcess()) {
            return run(lines, totalLines, base, maxRecordBytes(base), broker);
        }
    }

    private int run(LineSource lines, long totalLines, Map<String, String> base, int maxRecordBytes,
                    BrokerStart broker) throws IOException {
        long started = System.nanoTime();
        PhaseClock.mark("config-and-count");
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
        boolean receipts = options.outcomes() != null;
        Items items = new Items(lines, maxRecordBytes, options.triggers(), options.sample(), receipts);
        Replay.Result result;
        // one partition per stream thread (one by default): more add no parallelism, only one decoded-state cache per
        // task (32 MiB of encoded state each) on the heap; the output does not depend on it
        int partitions = Math.max(1, Integer.parseInt(base.getOrDefault("num.stream.threads", "1").trim()));
        try (Replay replay = Replay.open(new Replay.Settings(options.bootstrapServers(), base, "json", null, runName,
                partitions, receipts), broker);
             Progress progress = options.noProgress() ? null : Progress.onStderr("backfill", totalLines, "records");
             Jsonl.Writer writer = Jsonl.writer(temporary);
             Jsonl.Writer deadWriter = options.deadLetters() == null ? null : Jsonl.writer(options.deadLetters());
             Jsonl.Writer outcomeWriter = receipts ? Jsonl.writer(options.outcomes()) : null) {
            Replay.Sink sink = new Replay.Sink() {
                @Override
                public void snapshot(long position, byte[] value) throws IOException {
                    writer.write(isSynthetic(position) ? markSynthetic(value) : value);
                }

                @Override
                public void deadLetter(long position, Replay.ReportedDeadLetter dl) throws IOException {
                    if (deadWriter != null) {
                        deadWriter.write(deadLetterLine(position, dl));
                    }
                }

                @Override
                public void outcome(byte[] value) throws IOException {
                    outcomeWriter.write(value);
                    items.outcomeCount++;
                }
            };
            result = replay.run(items, BackfillRunner::snapshotIdOf, sink,
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
        PhaseClock.report("backfill");
        return report(result, items, output, started);
    }

    /** Bits of a position below the line number: room for the synthetic hand-offs that follow a line. */
    static final int SUB_BITS = 8;

    /** The replay position of a line (synthetic hand-offs after it take the positions just above). */
    static long positionOf(long lineNumber) {
        return lineNumber << SUB_BITS;
    }

    /** The input line a position stands for. */
    static long lineOf(long position) {
        return position == Replay.NO_POSITION ? -1 : position >>> SUB_BITS;
    }

    /** True for the position of a synthetic hand-off. */
    static boolean isSynthetic(long position) {
        return position != Replay.NO_POSITION && (position & ((1 << SUB_BITS) - 1)) != 0;
    }

    /**
     * The replay's input: each line as it is (or, over the limit, an OVERSIZED dead letter), lines of sessions left
     * out by {@code --sample} skipped, and the synthetic hand-offs of {@code --handoff-at} after their turns.
     */
    static final class Items implements Replay.Source {
        private final LineSource lines;
        private final int maxRecordBytes;
        private final HandoffTriggers triggers;
        private final double sample;
        /** Receipts on (--outcomes): receipt lines go to the receipts topic; off: a receipt line fails the run. */
        private final boolean receipts;
        private final java.util.ArrayDeque<Replay.Item> queued = new java.util.ArrayDeque<>();
        /** For {@code last}: per session, the last event time and the last ASSISTANT/TOOL agent. */
        private final Map<String, String[]> lastSeen = new HashMap<>();
        private long lastLine;
        private long epilogue;
        long sampledOut;
        long synthetic;
        long receiptCount;
        long outcomeCount;

        Items(LineSource lines, int maxRecordBytes, HandoffTriggers triggers, double sample) {
            this(lines, maxRecordBytes, triggers, sample, false);
        }

        Items(LineSource lines, int maxRecordBytes, HandoffTriggers triggers, double sample, boolean receipts) {
            this.lines = lines;
            this.maxRecordBytes = maxRecordBytes;
            this.triggers = triggers;
            this.sample = sample;
            this.receipts = receipts;
        }

        @Override
        public Replay.Item next() throws IOException {
            while (queued.isEmpty()) {
                EventLine event = lines.next();
                if (event == null) {
                    return null;
                }
                lastLine = event.lineNumber();
                convert(event);
            }
            return queued.poll();
        }

        private void convert(EventLine event) {
            Jsonl.Line line = event.line();
            long position = positionOf(event.lineNumber());
            Peek peek = peek(line.bytes());
            String key = peek.key();
            if (sample < 1.0 && Replay.isSessionKey(key) && !HandoffTriggers.sampled(key, sample)) {
                sampledOut++;
                return;
            }
            byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
            if (line.truncated()) {
                queued.add(new Replay.Reject(position, new Replay.ReportedDeadLetter(ErrorCode.OVERSIZED.name(),
                    String.format(Locale.ROOT, "line has %,d bytes; the limit is %,d (the dead letter keeps the first "
                        + "%,d)", line.size(), maxRecordBytes, line.bytes().length),
                    keyBytes, line.bytes(), line.size())));
                return;
            }
            if (peek.receipt()) {
                if (!receipts) {
                    throw new AppFailure(ExitCodes.USAGE, "input line " + event.lineNumber() + " is a hand-off receipt "
                        + "(content_sha256, no tenant_id): give --outcomes FILE to replay receipts");
                }
                receiptCount++;
                queued.add(new Replay.Receipt(position, keyBytes, line.bytes(), event.lineNumber()));
                return;
            }
            if (triggers != null && HandoffTriggers.reserved(peek.handoffId())) {
                queued.add(new Replay.Reject(position, new Replay.ReportedDeadLetter(ErrorCode.INVALID_ID.name(),
                    "handoff.handoff_id '" + peek.handoffId() + "' starts with " + HandoffTriggers.ID_PREFIX
                        + ", which is reserved for synthetic hand-offs while --handoff-at is on",
                    keyBytes, line.bytes(), line.size())));
                return;
            }
            String snapshotId = key != null && peek.handoffId() != null ? key + "/" + peek.handoffId() : null;
            queued.add(new Replay.Send(position, keyBytes, line.bytes(), snapshotId, peek.asOfSeq(),
                event.lineNumber()));
            if (triggers == null || !Replay.isSessionKey(key)) {
                return;
            }
            if (triggers.last() && peek.occurredAt() != null) {
                String[] seen = lastSeen.computeIfAbsent(key, k -> new String[2]);
                seen[0] = peek.occurredAt();
                if (peek.isTurn() && peek.role() != null && (peek.role().equalsIgnoreCase("ASSISTANT")
                    || peek.role().equalsIgnoreCase("TOOL"))) {
                    seen[1] = peek.agent();
                }
            }
            if (peek.isTurn() && peek.occurredAt() != null) {
                int sub = 1;
                for (byte[] h : triggers.after(new HandoffTriggers.Turn(peek.tenantId(), peek.sessionId(),
                    peek.occurredAt(), peek.seq(), peek.agent(), peek.role(), peek.hasError()))) {
                    if (sub >= (1 << SUB_BITS)) {
                        break; // (more than 255 synthetic hand-offs after one turn: a seqs file naming one seq 255 times)
                    }
                    Peek hp = peek(h);
                    // provenance: the line of the turn it follows
                    queued.add(new Replay.Send(position + sub++, keyBytes, h, key + "/" + hp.handoffId(), true,
                        event.lineNumber()));
                    synthetic++;
                }
            }
        }

        @Override
        public List<Replay.Item> afterSettle(String sessionKey) {
            if (triggers == null || !triggers.last()) {
                return List.of();
            }
            String[] seen = lastSeen.get(sessionKey);
            if (seen == null) {
                return List.of();
            }
            int slash = sessionKey.indexOf('/');
            byte[] h = triggers.lastOf(sessionKey.substring(0, slash), sessionKey.substring(slash + 1), seen[0],
                seen[1]);
            long position = positionOf(lastLine + 1 + epilogue++) + 1;
            synthetic++;
            // no input line: the session's provenance stays that of its last real record
            return List.of(new Replay.Send(position, sessionKey.getBytes(StandardCharsets.UTF_8), h,
                sessionKey + "/" + peek(h).handoffId(), false, -1));
        }
    }

    private int report(Replay.Result result, Items items, Path output, long started) {
        long seconds = Math.round((System.nanoTime() - started) / 1e9);
        Map<String, Double> counters = result.counters();
        say(String.format(Locale.ROOT, "%,d records of %,d sessions → %,d snapshots (%s), %,d dead letters%s, "
                + "%,.0f turns applied, %,.0f duplicate turns, %,.0f duplicate hand-offs; %d s", result.records(),
            result.sessions(), result.snapshots(), Jsonl.isStdio(output) ? "stdout" : output.toString(),
            result.deadLetterCount(), result.deadLetters().isEmpty() ? "" : " " + result.deadLetters(),
            counters.getOrDefault("applied-turns-total", 0.0), counters.getOrDefault("duplicate-turns-total", 0.0),
            counters.getOrDefault("duplicate-handoffs-total", 0.0), seconds));
        if (items.synthetic > 0) {
            say(String.format(Locale.ROOT, "%,d synthetic hand-offs (--handoff-at) among the records", items.synthetic));
        }
        if (options.outcomes() != null) {
            say(String.format(Locale.ROOT, "%,d receipts → %,d outcomes (%s)", items.receiptCount,
                items.outcomeCount, options.outcomes()));
        }
        if (items.sampledOut > 0) {
            say(String.format(Locale.ROOT, "%,d records of sessions outside --sample %s skipped", items.sampledOut,
                options.sample()));
        }
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

    /**
     * The snapshot's JSON with {@code "synthetic": true} (its schema's field; null on every other snapshot) and its
     * content hash recomputed.
     */
    static byte[] markSynthetic(byte[] snapshotJson) {
        ContextSnapshot snapshot = AvroJson.read(snapshotJson, ContextSnapshot.class);
        snapshot.setSynthetic(true);
        if (snapshot.getContentSha256() != null) {
            // the content hash covers every other field, this one too
            snapshot.setContentSha256(SnapshotHash.of(snapshot));
        }
        return AvroJson.write(snapshot);
    }

    /**
     * A dead letter as a line of the --dead-letters file: {error_code, error_message, source_line, record}, plus
     * {@code record_base64} (the original bytes) when the line is not valid UTF-8: {@code record} then holds the text
     * with U+FFFD for each bad sequence, which alone would lose the original.
     */
    static byte[] deadLetterLine(long position, Replay.ReportedDeadLetter dl) throws IOException {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("error_code", dl.code());
        node.put("error_message", dl.message());
        node.put("source_line", lineOf(position));
        byte[] value = dl.value();
        node.put("record", value == null ? null : new String(value, StandardCharsets.UTF_8));
        if (value != null && !StrictUtf8.isWellFormed(value, 0, value.length)) {
            node.put("record_base64", Base64.getEncoder().encodeToString(value));
        }
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

    /** Reads a line's {@link Peek} without building a tree. */
    static Peek peek(byte[] line) {
        String tenant = null;
        String session = null;
        String handoff = null;
        boolean asOf = false;
        String occurredAt = null;
        long seq = -1;
        String agent = null;
        String role = null;
        boolean error = false;
        boolean sha = false;
        String snapshotId = null;
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
                } else if (value == JsonToken.VALUE_STRING && name.equals("occurred_at")) {
                    occurredAt = p.getText();
                } else if (name.equals("content_sha256")) {
                    sha = true;
                    p.skipChildren();
                } else if (value == JsonToken.VALUE_STRING && name.equals("snapshot_id")) {
                    snapshotId = p.getText();
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
                } else if (value == JsonToken.START_OBJECT && name.equals("turn")) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String field = p.currentName();
                        JsonToken v = p.nextToken();
                        if (v == JsonToken.VALUE_NUMBER_INT && field.equals("seq")) {
                            seq = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? -1 : p.getLongValue();
                        } else if (v == JsonToken.VALUE_STRING && field.equals("agent")) {
                            agent = p.getText();
                        } else if (v == JsonToken.VALUE_STRING && field.equals("role")) {
                            role = p.getText();
                        } else if (v == JsonToken.START_ARRAY && field.equals("trail")) {
                            JsonToken step;
                            while ((step = p.nextToken()) != JsonToken.END_ARRAY && step != null) {
                                if (step != JsonToken.START_OBJECT) {
                                    p.skipChildren();
                                    continue;
                                }
                                while (p.nextToken() == JsonToken.FIELD_NAME) {
                                    String stepField = p.currentName();
                                    JsonToken sv = p.nextToken();
                                    if (sv == JsonToken.VALUE_STRING && stepField.equals("status")) {
                                        error |= p.getText().equalsIgnoreCase("ERROR");
                                    } else {
                                        p.skipChildren();
                                    }
                                }
                            }
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
        // a receipt (HandoffReceipt JSON) has content_sha256 at the top and no tenant_id; every event has tenant_id
        boolean receipt = sha && tenant == null;
        return new Peek(tenant, session, handoff, asOf, occurredAt, seq, agent, role, error, receipt, snapshotId);
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
