package dev.baton.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.internals.RecordHeaders;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.cli.data.ClusterClients;
import dev.baton.cli.data.DeadLetterRecord;
import dev.baton.cli.data.TopicReader;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.service.command.ConnectionOptions;
import dev.baton.service.command.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code baton dead-letters}: lists, counts and re-sends the records Baton rejected. A re-send goes to the input topic
 * with the original key and value and a {@value DeadLetterRecord#RESENT_FROM} header; it is recorded on a small
 * compacted topic keyed by {@code event_id}, so the same event is never re-sent twice.
 */
@Command(
        name = "dead-letters",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "List, count and re-send the records Baton rejected (baton.dead-letters).",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Reads baton.dead-letters to its end (read_committed) and shows each selected dead letter: where it "
                    + "is (partition/offset), its error code and message, the record it came from (source topic, "
                    + "partition, offset), and the original key and value, as text where they are UTF-8 and else in "
                    + "--bytes hex|base64. --summary counts them by code and by tenant instead.",
            "",
            "--resend sends the selected dead letters back to the input topic after a fix (a schema registered, a "
                    + "limit raised, a policy changed), with their original key and value and the header "
                    + "baton.resent-from: TOPIC/PARTITION/OFFSET. Each one is first judged by Baton's decoder: one "
                    + "that Baton would still reject is skipped with the reason, and so is a value that was cut to an "
                    + "excerpt (OVERSIZED). Each re-sent event_id is recorded on the compacted topic --resent-topic "
                    + "(created when missing); an event_id recorded there is skipped, so running the same re-send "
                    + "twice sends nothing the second time."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Examples:",
            "  baton dead-letters --config baton.properties --summary",
            "  baton dead-letters --config baton.properties --code UNKNOWN_SCHEMA --tenant acme",
            "  baton dead-letters --config baton.properties --offsets 0/17,2/4 --resend"
        })
public final class DeadLettersCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--code", paramLabel = "CODE", split = ",", description = "Only these error codes (e.g. MALFORMED).")
    List<String> codes;

    @Option(names = "--tenant", paramLabel = "TENANT", description = "Only dead letters whose key names this tenant.")
    String tenant;

    @Option(names = "--offsets", paramLabel = "P/O", split = ",",
            description = "Only these records of the dead-letter topic (partition/offset, as listed).")
    List<String> offsets;

    @Option(names = "--since", paramLabel = "DURATION", converter = dev.baton.cli.data.Durations.class,
            description = "Only dead letters written in the last DURATION (90s, 15m, 2h, 7d).")
    Duration since;

    @Option(names = "--summary", description = "Count the selected dead letters by code and by tenant.")
    boolean summary;

    @Option(names = "--jsonl", description = "One JSON object per dead letter.")
    boolean jsonl;

    @Option(names = "--bytes", paramLabel = "hex|base64", defaultValue = "hex",
            description = "How keys and values that are not UTF-8 are shown. Default: ${DEFAULT-VALUE}.")
    DeadLetterRecord.Bytes bytes;

    @Option(names = "--full", description = "Show values whole (default: the first 400 characters).")
    boolean full;

    @Option(names = "--resend", description = "Send the selected dead letters back to the input topic (see above).")
    boolean resend;

    @Option(names = "--resent-topic", paramLabel = "TOPIC",
            description = "Compacted topic recording re-sent event_ids. Default: the dead-letter topic + .resent.")
    String resentTopic;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "15",
            description = "How long to wait for Kafka before giving up. Default: ${DEFAULT-VALUE}.")
    int timeoutSeconds;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        ClusterClients clients = ClusterClients.load(connection);
        String topic = clients.config().deadLettersTopic();
        List<DeadLetterRecord> selected = select(clients, topic);
        if (summary) {
            summarize(selected);
        } else if (!resend) {
            selected.forEach(this::print);
            System.err.printf(Locale.ROOT, "dead-letters: %,d shown from %s%n", selected.size(), topic);
        }
        if (resend) resend(clients, topic, selected);
        out.flush();
        return ExitCodes.OK;
    }

    private List<DeadLetterRecord> select(ClusterClients clients, String topic) throws Exception {
        Set<String> wanted = offsets == null ? null : new HashSet<>(offsets);
        List<DeadLetterRecord> selected = new ArrayList<>();
        try (TopicReader reader = new TopicReader(clients.consumerProperties(), topic, Duration.ofSeconds(timeoutSeconds))) {
            if (since != null) reader.seekToTime(System.currentTimeMillis() - since.toMillis());
            else reader.seek(TopicReader.Start.BEGINNING);
            reader.readToEnd(r -> {
                DeadLetterRecord d = DeadLetterRecord.of(r);
                if ((wanted == null || wanted.contains(d.position()))
                        && (codes == null || codes.contains(d.code()))
                        && (tenant == null || tenant.equals(d.tenant()))) {
                    selected.add(d);
                }
                return true;
            });
        }
        if (wanted != null) {
            Set<String> found = new HashSet<>();
            selected.forEach(d -> found.add(d.position()));
            wanted.stream().filter(w -> !found.contains(w)).sorted()
                    .forEach(w -> System.err.println("dead-letters: no dead letter at " + w + " (or filtered out)"));
        }
        return selected;
    }

    private void print(DeadLetterRecord d) {
        if (jsonl) {
            out.println(d.toJson(bytes));
            return;
        }
        out.printf(Locale.ROOT, "%s  %s  %s  from %s/%s/%s%n", d.position(), d.code(), Instant.ofEpochMilli(d.timestamp()),
                d.sourceTopic(), d.sourcePartition(), d.sourceOffset());
        out.println("  message: " + d.message());
        out.println("  key:     " + DeadLetterRecord.show(d.key(), bytes));
        String value = DeadLetterRecord.show(d.value(), bytes);
        if (!full && value.length() > 400) value = value.substring(0, 400) + "… (" + value.length() + " chars; --full)";
        out.println("  value:   " + value.replace("\n", "\n           "));
        if (d.cut()) out.println("  (value cut to an excerpt; the original had " + d.originalSize() + " bytes)");
    }

    private void summarize(List<DeadLetterRecord> selected) {
        Map<String, Integer> byCode = new TreeMap<>();
        Map<String, Integer> byTenant = new TreeMap<>();
        for (DeadLetterRecord d : selected) {
            byCode.merge(String.valueOf(d.code()), 1, Integer::sum);
            byTenant.merge(d.tenant() == null ? "(no tenant in key)" : d.tenant(), 1, Integer::sum);
        }
        out.printf(Locale.ROOT, "%,d dead letters%n", selected.size());
        out.println("by code:");
        byCode.forEach((k, n) -> out.printf(Locale.ROOT, "  %-20s %,d%n", k, n));
        out.println("by tenant:");
        byTenant.forEach((k, n) -> out.printf(Locale.ROOT, "  %-20s %,d%n", k, n));
    }

    private void resend(ClusterClients clients, String topic, List<DeadLetterRecord> selected) throws Exception {
        String input = clients.config().sessionEventsTopic();
        String record = resentTopic != null ? resentTopic : topic + ".resent";
        ensureCompacted(clients, record);
        Set<String> done = new HashSet<>();
        try (TopicReader reader = new TopicReader(clients.consumerProperties(), record, Duration.ofSeconds(timeoutSeconds))) {
            reader.seek(TopicReader.Start.BEGINNING);
            reader.readToEnd(r -> {
                if (r.key() != null && r.value() != null) done.add(new String(r.key(), StandardCharsets.UTF_8));
                return true;
            });
        }
        SessionEventDecoder decoder = SessionEventDecoder.forFormat(clients.format(), clients.registry(),
                clients.config().defaultPolicy().maxRecordBytes());
        int sent = 0;
        int skipped = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(clients.producerProperties())) {
            for (DeadLetterRecord d : selected) {
                String from = topic + "/" + d.position();
                if (d.cut()) {
                    skipped++;
                    out.println(from + ": skipped: the value was cut to an excerpt (" + d.originalSize()
                            + " bytes originally); send the original again from its source");
                    continue;
                }
                Decoded verdict = decoder.decode(d.key(), d.value());
                if (!verdict.accepted()) {
                    skipped++;
                    out.println(from + ": skipped: Baton would still reject it: " + verdict.code() + ": " + verdict.message());
                    continue;
                }
                String eventId = verdict.event().eventId();
                if (done.contains(eventId)) {
                    skipped++;
                    out.println(from + ": skipped: event " + eventId + " was already re-sent");
                    continue;
                }
                RecordHeaders headers = new RecordHeaders();
                headers.add(DeadLetterRecord.RESENT_FROM, from.getBytes(StandardCharsets.UTF_8));
                producer.send(new ProducerRecord<>(input, null, d.key(), d.value(), headers)).get();
                // recorded after the send: a crash in between re-sends one event twice, which Baton ignores as a
                // duplicate (a seq or handoff_id it has seen); recording first could lose the event instead
                producer.send(new ProducerRecord<>(record, eventId.getBytes(StandardCharsets.UTF_8),
                        (from + " " + Instant.now()).getBytes(StandardCharsets.UTF_8))).get();
                done.add(eventId);
                sent++;
                out.println(from + ": re-sent event " + eventId + " to " + input);
            }
        }
        System.err.printf(Locale.ROOT, "dead-letters: %d re-sent to %s, %d skipped (re-sends recorded on %s)%n", sent,
                input, skipped, record);
    }

    /** The record of re-sent event_ids: one compacted partition, created when missing. */
    private void ensureCompacted(ClusterClients clients, String name) throws Exception {
        java.util.Properties p = new java.util.Properties();
        clients.consumerProperties().forEach((k, v) -> {
            if (org.apache.kafka.clients.admin.AdminClientConfig.configNames().contains(k.toString())) p.put(k, v);
        });
        try (Admin admin = Admin.create(p)) {
            if (admin.listTopics().names().get(timeoutSeconds, TimeUnit.SECONDS).contains(name)) return;
            try {
                admin.createTopics(List.of(new NewTopic(name, java.util.Optional.of(1), java.util.Optional.empty())
                        .configs(Map.of("cleanup.policy", "compact")))).all().get(timeoutSeconds, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new AppFailure(ExitCodes.FAILED, "cannot create " + name + " (the record of re-sent events): "
                            + e.getCause().getMessage());
                }
            }
        }
    }
}
