package dev.baton.replay;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.baton.avro.SessionEvent;
import dev.baton.egress.ContextSnapshotReader;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.MockSchemaRegistry;
import dev.baton.serde.SchemaRegistries;
import dev.baton.serde.SchemaRegistryClient;

/**
 * {@code baton demo}: the bundled sample (or {@code --input}) as Avro through the real topology on
 * an in-process broker with an in-memory registry; prints every snapshot, in the input order of the
 * hand-offs, and the dead letters. Leaves nothing running.
 */
public final class DemoRunner {

    /** The bundled sample, a classpath resource. */
    public static final String SAMPLE_RESOURCE = "/demo/sessions.jsonl";

    private final Path input;
    private final boolean jsonl;
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;

    public DemoRunner(Path input, boolean jsonl) {
        this.input = input;
        this.jsonl = jsonl;
    }

    /** One sample event: its line, its key and, for a hand-off, the snapshot id it asks for. */
    private record Event(long line, String key, SessionEvent event, String snapshotId) {
    }

    public int run() throws IOException {
        List<Event> events = readEvents();
        String scope = "baton-demo-" + UUID.randomUUID();
        String registryUrl = SchemaRegistries.MOCK_PREFIX + scope;
        SchemaRegistryClient registry = SchemaRegistries.forUrl(registryUrl);
        long started = System.nanoTime();
        Logging.quietForEmbeddedRun();
        err.println("demo: starting Kafka and the Baton topology in this process…");
        try (Replay replay = Replay.open(new Replay.Settings(null, Map.of(), "avro", registryUrl, "baton-demo", 2))) {
            ConfluentAvroCodec<SessionEvent> codec = new ConfluentAvroCodec<>(registry, SessionEvent.class);
            String topic = replay.config().sessionEventsTopic();
            Set<String> sessions = new LinkedHashSet<>();
            events.forEach(e -> sessions.add(e.key()));
            Iterator<Event> input = events.iterator();
            ContextSnapshotReader reader = ContextSnapshotReader.avro(registry);
            List<Snapshot> snapshots = new ArrayList<>();
            Map<Long, Replay.ReportedDeadLetter> deadByLine = new LinkedHashMap<>();
            Replay.Sink sink = new Replay.Sink() {
                @Override
                public void snapshot(long position, byte[] value) {
                    snapshots.add(reader.readSnapshot(value));
                }

                @Override
                public void deadLetter(long position, Replay.ReportedDeadLetter deadLetter) {
                    deadByLine.put(position == Replay.NO_POSITION ? -1 : position, deadLetter);
                }
            };
            Replay.Source source = () -> {
                if (!input.hasNext()) {
                    err.printf(Locale.ROOT, "demo: %d events of %d sessions produced as Avro; waiting for the snapshots…%n",
                            events.size(), sessions.size());
                    return null;
                }
                Event e = input.next();
                return new Replay.Send(e.line(), e.key().getBytes(StandardCharsets.UTF_8),
                        codec.serialize(topic, e.event()), e.snapshotId(),
                        e.event().getHandoff() != null && e.event().getHandoff().getAsOfSeq() != null);
            };
            Replay.Result result;
            try {
                result = replay.run(source, value -> reader.readSnapshot(value).snapshotId(), sink, Duration.ofMinutes(3),
                        n -> { });
            } catch (AppFailure e) {
                if (e.exitCode() == ExitCodes.INCOMPLETE) {
                    throw new AppFailure(ExitCodes.FAILED, "the topology did not process the sample within 3 minutes");
                }
                throw e;
            }
            Map<String, Double> counters = result.counters();
            print(snapshots, deadByLine);
            long seconds = Math.round((System.nanoTime() - started) / 1e9);
            err.printf(Locale.ROOT, "demo: %d events, %d sessions → %d snapshots, %d dead %s, %.0f duplicate %s ignored "
                            + "(%d s)%n", events.size(), sessions.size(), result.snapshots() + result.unmatchedSnapshots(),
                    deadByLine.size(), deadByLine.size() == 1 ? "letter" : "letters",
                    counters.getOrDefault("duplicate-turns-total", 0.0),
                    counters.getOrDefault("duplicate-turns-total", 0.0) == 1.0 ? "turn" : "turns", seconds);
            if (!result.complete()) {
                long duplicates = Math.round(counters.getOrDefault("duplicate-handoffs-total", 0.0));
                throw new AppFailure(ExitCodes.FAILED, Math.max(result.unplaced(), result.noOutput() - duplicates)
                        + " hand-offs got neither a snapshot nor a dead letter");
            }
            return ExitCodes.OK;
        } finally {
            MockSchemaRegistry.dropScope(scope);
        }
    }

    /** Prints the snapshots (already in hand-off order) and the dead letters. */
    private void print(List<Snapshot> snapshots, Map<Long, Replay.ReportedDeadLetter> deadByLine) {
        SnapshotPrinter printer = new SnapshotPrinter(out);
        for (Snapshot s : snapshots) {
            if (jsonl) {
                out.println(dev.baton.egress.SnapshotEncoder.toJsonLine(s));
            } else {
                printer.print(s);
            }
        }
        if (!jsonl) {
            List<String> lines = new ArrayList<>();
            deadByLine.forEach((line, d) -> lines.add(String.format(Locale.ROOT, "line %d  %-13s %s", line,
                    d.code(), d.message())));
            printer.deadLetters(lines);
        }
        out.flush();
    }

    private List<Event> readEvents() throws IOException {
        List<Event> events = new ArrayList<>();
        if (input == null) {
            try (InputStream in = DemoRunner.class.getResourceAsStream(SAMPLE_RESOURCE)) {
                if (in == null) {
                    throw new AppFailure(ExitCodes.FAILED, "the bundled sample " + SAMPLE_RESOURCE + " is missing");
                }
                String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
                for (int i = 0; i < lines.length; i++) {
                    add(events, i + 1, lines[i].getBytes(StandardCharsets.UTF_8));
                }
            }
        } else {
            try (Jsonl.Reader reader = Jsonl.reader(input)) {
                byte[] line;
                while ((line = reader.next()) != null) {
                    add(events, reader.lineNumber(), line);
                }
            } catch (java.nio.file.NoSuchFileException e) {
                throw new AppFailure(ExitCodes.FAILED, "no such file: " + input);
            }
        }
        return events;
    }

    private void add(List<Event> events, long line, byte[] bytes) {
        if (new String(bytes, StandardCharsets.UTF_8).isBlank()) {
            return;
        }
        SessionEvent event;
        try {
            event = AvroJson.read(bytes, SessionEvent.class);
        } catch (RuntimeException e) {
            // the demo produces Avro, so a line that is not a SessionEvent at all cannot be sent;
            // `baton backfill` sends such lines and shows them as dead letters
            err.println("demo: skipping line " + line + ": " + e.getMessage());
            return;
        }
        // the key as the producer would send it; a hand-off with invalid ids is dead-lettered, so it has no snapshot id
        String key = SessionKey.format(event.getTenantId(), event.getSessionId());
        String snapshotId = event.getHandoff() == null ? null : SessionKey.ifValid(event.getTenantId(),
                event.getSessionId()).map(k -> k.snapshotId(event.getHandoff().getHandoffId())).orElse(null);
        events.add(new Event(line, key, event, snapshotId));
    }
}
