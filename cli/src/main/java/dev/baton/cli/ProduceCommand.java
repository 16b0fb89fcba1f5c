package dev.baton.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.cli.data.ClusterClients;
import dev.baton.config.BatonConfig;
import dev.baton.cli.data.EventLines;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.replay.BackfillRunner;
import dev.baton.replay.Jsonl;
import dev.baton.service.command.ConnectionOptions;
import dev.baton.service.command.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code baton produce}: SessionEvent JSON lines to the live input topic, checked first as Baton would check them. */
@Command(
        name = "produce",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Send SessionEvent JSON lines (e.g. `baton import` output) to baton.session-events.",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Reads the file twice. First every line is judged by Baton's own decoder, in the topic's format and "
                    + "under its record limit: each line Baton would dead-letter is reported with its line number, "
                    + "code and reason, and then nothing is sent. Otherwise every line is sent in file order, keyed "
                    + "TENANT/SESSION as Baton expects, Avro through the schema registry or JSON (--format), by an "
                    + "idempotent producer (acks=all, no duplicates or reordering from retries). Progress goes to "
                    + "stderr. --check stops after the first pass.",
            "",
            "Exit codes: 0 every line sent (or valid, with --check); 1 some line breaks the contract (nothing "
                    + "sent) or Kafka failed; 2 wrong command line or configuration."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Examples:",
            "  baton produce --check events.jsonl",
            "  baton produce --bootstrap-servers kafka:9092 --schema-registry-url http://registry:8081 events.jsonl",
            "  baton import --from atif --tenant acme runs/ -o - | baton produce --config baton.properties --rate 200 -"
        })
public final class ProduceCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Parameters(index = "0", paramLabel = "FILE", description = "SessionEvent JSONL (.gz allowed), or - for stdin.")
    Path input;

    @Option(names = "--check", description = "Only judge the lines; send nothing (needs no Kafka).")
    boolean check;

    @Option(names = "--rate", paramLabel = "N", description = "Send at most N events per second. Default: no limit.")
    Double rate;

    private final PrintStream err = System.err;

    @Override
    public Integer call() throws Exception {
        if (rate != null && !(rate > 0)) throw new AppFailure(ExitCodes.USAGE, "--rate must be > 0");
        Path file = input;
        Path spooled = null;
        if (input.toString().equals("-")) {
            // read twice: keep stdin in a temporary file
            spooled = Files.createTempFile("baton-produce-", ".jsonl");
            try (InputStream in = System.in) {
                Files.copy(in, spooled, StandardCopyOption.REPLACE_EXISTING);
            }
            file = spooled;
        }
        try {
            ClusterClients clients = check ? null : ClusterClients.load(connection);
            BatonConfig config = clients != null ? clients.config() : ClusterClients.offline(connection);
            String format = config.format().name().toLowerCase(Locale.ROOT);
            String topic = config.sessionEventsTopic();
            long lines = judge(file, format, topic, config.defaultPolicy().maxRecordBytes());
            if (check) {
                err.printf(Locale.ROOT, "produce: %,d events valid (%s, limit %,d bytes); nothing sent (--check)%n",
                        lines, format, config.defaultPolicy().maxRecordBytes());
                return ExitCodes.OK;
            }
            send(file, clients, topic, lines);
            return ExitCodes.OK;
        } catch (NoSuchFileException e) {
            throw new AppFailure(ExitCodes.FAILED, "no such file: " + input);
        } finally {
            if (spooled != null) Files.deleteIfExists(spooled);
        }
    }

    /** The first pass: every line that breaks the contract is reported; returns the number of events. */
    private long judge(Path file, String format, String topic, int maxRecordBytes) throws IOException {
        EventLines judge = new EventLines(format, maxRecordBytes);
        long events = 0;
        long refused = 0;
        try (Jsonl.Reader reader = Jsonl.reader(file)) {
            byte[] line;
            while ((line = reader.next()) != null) {
                if (Jsonl.isBlank(line)) continue;
                events++;
                EventLines.Verdict v = judge.judge(topic, line);
                if (!v.accepted()) {
                    refused++;
                    err.printf("produce: %s line %d: %s: %s%n", input, reader.lineNumber(), v.code(), v.message());
                }
            }
        } finally {
            judge.close();
        }
        if (refused > 0) {
            throw new AppFailure(ExitCodes.FAILED, String.format(Locale.ROOT, "%,d of %,d lines break the contract "
                    + "(see above); nothing was sent", refused, events));
        }
        if (events == 0) throw new AppFailure(ExitCodes.FAILED, "no events in " + input);
        return events;
    }

    /** The second pass: every line in order, at most --rate per second, progress on stderr. */
    private void send(Path file, ClusterClients clients, String topic, long total) throws Exception {
        SessionEventEncoder encoder = SessionEventEncoder.forFormat(clients.format(), clients.registry());
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong acked = new AtomicLong();
        long started = System.nanoTime();
        long lastProgress = started;
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(clients.producerProperties());
             Jsonl.Reader reader = Jsonl.reader(file)) {
            byte[] line;
            while ((line = reader.next()) != null && failure.get() == null) {
                if (Jsonl.isBlank(line)) continue;
                String key = BackfillRunner.sessionKeyOf(line);
                byte[] value = encoder.encode(topic, line);
                producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value), (md, e) -> {
                    if (e != null) failure.compareAndSet(null, e);
                    else acked.incrementAndGet();
                });
                sent++;
                if (rate != null) pace(started, sent);
                long now = System.nanoTime();
                if (now - lastProgress > 2_000_000_000L) {
                    lastProgress = now;
                    err.printf(Locale.ROOT, "produce: %,d of %,d sent, %,d acknowledged%n", sent, total, acked.get());
                }
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new AppFailure(ExitCodes.FAILED, "Kafka refused an event after " + acked.get() + " were acknowledged: "
                    + failure.get().getMessage());
        }
        double seconds = Math.max(1e-3, (System.nanoTime() - started) / 1e9);
        err.printf(Locale.ROOT, "produce: %,d events sent to %s (%.0f/s)%n", acked.get(), topic, acked.get() / seconds);
    }

    /** Sleeps until the {@code sent}-th event is due at --rate per second. */
    private void pace(long started, long sent) throws InterruptedException {
        long due = started + (long) (sent / rate * 1e9);
        long wait = due - System.nanoTime();
        if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
}
