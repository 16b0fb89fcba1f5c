package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.SessionEvent;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.egress.ContextSnapshotReader;
import dev.baton.it.EngineRendering;
import dev.baton.it.KafkaBroker;
import dev.baton.it.RealSchemaRegistry;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.HttpSchemaRegistryClient;

/**
 * {@code baton tail}, {@code produce}, {@code policy} and {@code dead-letters} on a real in-process broker and the
 * real schema registry, in Avro (one broker and one registry for the class; each test has its own topics).
 */
class DataCommandsIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    static final RealSchemaRegistry registry = new RealSchemaRegistry();

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** A configuration on topics PREFIX.*, created here. */
    private Path config(String prefix) throws Exception {
        kafka.createTopics(2, prefix + ".session-events", prefix + ".context-snapshots", prefix + ".dead-letters");
        kafka.kafka().createTopics(1, Map.of("cleanup.policy", "compact"), prefix + ".tenant-policies");
        Path file = dir.resolve(prefix + ".properties");
        Files.writeString(file, String.join("\n",
                "bootstrap.servers=" + kafka.bootstrapServers(),
                "baton.format=avro",
                "baton.schema-registry.url=" + registry.url(),
                "baton.topic.session-events=" + prefix + ".session-events",
                "baton.topic.context-snapshots=" + prefix + ".context-snapshots",
                "baton.topic.dead-letters=" + prefix + ".dead-letters",
                "baton.topic.tenant-policies=" + prefix + ".tenant-policies", ""));
        return file;
    }

    private static CommandOutput baton(Path config, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        int at = all.get(0).equals("policy") ? 2 : 1;
        all.addAll(at, List.of("--config", config.toString()));
        return CommandOutput.run(all.toArray(String[]::new));
    }

    /** Every committed record of the topic, read to its end. */
    private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(kafka.consumerProps("it-" + topic))) {
            List<TopicPartition> parts = c.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> ends = new HashMap<>(c.endOffsets(parts));
            while (parts.stream().anyMatch(p -> c.position(p) < ends.get(p))) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void shouldReportEveryBadLineBeforeSendingAnythingThenSendEveryEventKeyedAsBatonExpects() throws Exception {
        Path config = config("produce");
        // the demo's sample has one line Baton rejects on purpose (a to_agent that is not a name)
        List<String> sample = EngineRendering.sample().stream().filter(l -> !l.contains("Claude Opus")).toList();
        List<String> bad = new ArrayList<>(sample.subList(0, 3));
        bad.add(1, sample.get(1).replace("\"tenant_id\":\"acme-robotics\"", "\"tenant_id\":\"no spaces allowed\""));
        bad.add("{\"event_id\":\"x\"");
        Path badFile = dir.resolve("bad.jsonl");
        Files.write(badFile, bad);

        CommandOutput refused = baton(config, "produce", badFile.toString());
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err()).contains("line 2: INVALID_ID").contains("line 5: MALFORMED")
                .contains("2 of 5 lines break the contract").doesNotContain("line 1:").doesNotContain("line 3:");
        assertThat(readAll("produce.session-events")).isEmpty();
        assertThat(baton(config, "produce", "--check", badFile.toString()).exitCode()).isEqualTo(1);

        Path good = dir.resolve("good.jsonl");
        Files.write(good, sample);
        assertThat(baton(config, "produce", "--check", good.toString()).exitCode()).isZero();
        assertThat(readAll("produce.session-events")).isEmpty();
        CommandOutput sent = baton(config, "produce", "--rate", "1000", good.toString());
        assertThat(sent.exitCode()).as(sent.err()).isZero();
        assertThat(sent.err()).contains(sample.size() + " events sent");

        List<ConsumerRecord<byte[], byte[]>> records = readAll("produce.session-events");
        assertThat(records).hasSize(sample.size());
        ConfluentAvroCodec<SessionEvent> codec = new ConfluentAvroCodec<>(new HttpSchemaRegistryClient(registry.url()),
                SessionEvent.class);
        for (ConsumerRecord<byte[], byte[]> r : records) {
            SessionEvent e = codec.deserialize(r.value());
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(e.getTenantId() + "/" + e.getSessionId());
        }
    }

    @Test
    void shouldTailTheSnapshotsDecodedFilteredAndStopAtTheLimit() throws Exception {
        Path config = config("tail");
        Map<String, byte[]> snapshots = EngineRendering.renderDirectly(EngineRendering.sample());
        ConfluentAvroCodec<ContextSnapshot> codec = new ConfluentAvroCodec<>(
                new HttpSchemaRegistryClient(registry.url()), ContextSnapshot.class);
        List<ContextSnapshot> records = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(kafka.producerProps(null))) {
            for (byte[] json : snapshots.values()) {
                ContextSnapshot s = ContextSnapshotReader.json().read(json);
                records.add(s);
                p.send(new ProducerRecord<>("tail.context-snapshots", (s.getTenantId() + "/" + s.getSessionId())
                        .getBytes(StandardCharsets.UTF_8), codec.serialize("tail.context-snapshots", s))).get();
            }
        }
        long globex = records.stream().filter(s -> s.getTenantId().equals("globex")).count();
        assertThat(globex).isPositive().isLessThan(records.size());

        CommandOutput filtered = baton(config, "tail", "--from-beginning", "--to-end", "--tenant", "globex", "--jsonl");
        assertThat(filtered.exitCode()).as(filtered.err()).isZero();
        assertThat(filtered.outLines()).hasSize((int) globex);
        for (String line : filtered.outLines()) {
            ContextSnapshot s = AvroJson.read(line, ContextSnapshot.class);
            assertThat(s.getTenantId()).isEqualTo("globex");
            assertThat(records).contains(s);
        }

        ContextSnapshot first = records.get(0);
        CommandOutput one = baton(config, "tail", "--from-beginning", "--max", "1", "--session", first.getSessionId(),
                "--to-agent", first.getToAgent());
        assertThat(one.exitCode()).as(one.err()).isZero();
        assertThat(one.out()).contains(first.getTenantId() + " / " + first.getSessionId() + " · hand-off "
                + first.getHandoffId()).contains("brick (").contains("parity:");
        assertThat(one.out().split("hand-off ", -1)).hasSize(2);

        Path file = dir.resolve("snapshots.jsonl");
        Files.write(file, snapshots.values().stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        CommandOutput fromFile = CommandOutput.run("tail", "--file", file.toString(), "--synthetic", "false", "--jsonl");
        assertThat(fromFile.exitCode()).as(fromFile.err()).isZero();
        assertThat(fromFile.outLines()).hasSize(records.size());
        assertThat(CommandOutput.run("tail", "--file", file.toString(), "--synthetic").outLines()).isEmpty();
    }

    @Test
    void shouldPutGetListAndDeleteAPolicyAndRefuseOneBatonWouldReject() throws Exception {
        Path config = config("policy");
        Path policy = dir.resolve("acme.yaml");
        Files.writeString(policy, "# acme's budgets\ntranscript_budget_chars: 50000\nbrick_max_agents: 4\n");

        CommandOutput noTty = baton(config, "policy", "put", "--tenant", "acme", policy.toString());
        assertThat(noTty.exitCode()).isEqualTo(2);
        assertThat(noTty.err()).contains("not a terminal").contains("--yes");
        assertThat(readAll("policy.tenant-policies")).isEmpty();

        CommandOutput put = baton(config, "policy", "put", "--tenant", "acme", "--yes", policy.toString());
        assertThat(put.exitCode()).as(put.err()).isZero();
        assertThat(put.out()).contains("new policy for acme").contains("transcript_budget_chars: (default) -> 50000")
                .contains("brick_max_agents: (default) -> 4");

        CommandOutput get = baton(config, "policy", "get", "--tenant", "acme");
        assertThat(get.exitCode()).as(get.err()).isZero();
        assertThat(get.out()).contains("tenant_id: acme").contains("transcript_budget_chars: 50000")
                .contains("brick_max_agents: 4");

        Files.writeString(policy, "{\"transcript_budget_chars\": 60000, \"brick_max_agents\": 4}");
        CommandOutput change = baton(config, "policy", "put", "--tenant", "acme", "-y", policy.toString());
        assertThat(change.exitCode()).as(change.err()).isZero();
        assertThat(change.out()).contains("transcript_budget_chars: 50000 -> 60000").doesNotContain("brick_max_agents");

        Files.writeString(policy, "brick_max_agents: 0\n");
        CommandOutput rejected = baton(config, "policy", "put", "--tenant", "acme", "--yes", policy.toString());
        assertThat(rejected.exitCode()).isEqualTo(1);
        assertThat(rejected.err()).contains("Baton would reject it").contains("brick_max_agents is 0; must be > 0");
        Files.writeString(policy, "transcript_budget_charz: 5\n");
        assertThat(baton(config, "policy", "put", "--tenant", "acme", "--yes", policy.toString()).err())
                .contains("policy refused").contains("unknown field(s) transcript_budget_charz");

        CommandOutput list = baton(config, "policy", "list");
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.outLines()).containsExactly("acme\t2 field(s) set\tvalid");

        CommandOutput delete = baton(config, "policy", "delete", "--tenant", "acme", "--yes");
        assertThat(delete.exitCode()).as(delete.err()).isZero();
        assertThat(delete.out()).contains("transcript_budget_chars: 60000 -> (default)");
        assertThat(readAll("policy.tenant-policies")).hasSize(3).last().satisfies(r -> assertThat(r.value()).isNull());
        assertThat(baton(config, "policy", "get", "--tenant", "acme").exitCode()).isEqualTo(1);
        assertThat(baton(config, "policy", "list").outLines()).isEmpty();
    }

    @Test
    void shouldListCountAndResendDeadLettersEachEventOnce() throws Exception {
        Path config = config("dlq");
        ConfluentAvroCodec<SessionEvent> codec = new ConfluentAvroCodec<>(new HttpSchemaRegistryClient(registry.url()),
                SessionEvent.class);
        String line = EngineRendering.sample().get(0);
        SessionEvent event = AvroJson.read(line, SessionEvent.class);
        byte[] key = (event.getTenantId() + "/" + event.getSessionId()).getBytes(StandardCharsets.UTF_8);
        byte[] good = codec.serialize("dlq.session-events", event);
        byte[] garbage = {0x00, (byte) 0xff, (byte) 0xfe, 0x41};
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(kafka.producerProps(null))) {
            p.send(new ProducerRecord<>("dlq.dead-letters", 0, key, good, DeadLetterHeaders.of("UNKNOWN_SCHEMA",
                    "schema id 7 is unknown", "dlq.session-events", 1, 40))).get();
            p.send(new ProducerRecord<>("dlq.dead-letters", 0, "globex/s9".getBytes(StandardCharsets.UTF_8), garbage,
                    DeadLetterHeaders.of("MALFORMED", "bad magic byte", "dlq.session-events", 0, 12))).get();
        }

        CommandOutput list = baton(config, "dead-letters", "--jsonl", "--bytes", "base64");
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.outLines()).hasSize(2);
        JsonNode bad = JSON.readTree(list.outLines().get(1));
        assertThat(bad.get("error_code").asText()).isEqualTo("MALFORMED");
        assertThat(bad.get("source_offset").asText()).isEqualTo("12");
        assertThat(bad.get("key").asText()).isEqualTo("globex/s9");
        assertThat(java.util.Base64.getDecoder().decode(bad.get("value_base64").asText())).isEqualTo(garbage);
        assertThat(baton(config, "dead-letters", "--code", "MALFORMED").out())
                .contains("0/1  MALFORMED").contains("value:   hex:00fffe41").doesNotContain("UNKNOWN_SCHEMA");

        CommandOutput summary = baton(config, "dead-letters", "--summary");
        assertThat(summary.out()).contains("2 dead letters").containsPattern("MALFORMED +1")
                .containsPattern("UNKNOWN_SCHEMA +1").containsPattern("acme-robotics +1").containsPattern("globex +1");

        CommandOutput resend = baton(config, "dead-letters", "--resend");
        assertThat(resend.exitCode()).as(resend.err()).isZero();
        assertThat(resend.out()).contains("dlq.dead-letters/0/0: re-sent event " + event.getEventId())
                .contains("dlq.dead-letters/0/1: skipped: Baton would still reject it: MALFORMED");
        CommandOutput again = baton(config, "dead-letters", "--resend", "--offsets", "0/0");
        assertThat(again.out()).contains("skipped: event " + event.getEventId() + " was already re-sent");

        List<ConsumerRecord<byte[], byte[]>> input = readAll("dlq.session-events");
        assertThat(input).hasSize(1);
        assertThat(input.get(0).key()).isEqualTo(key);
        assertThat(input.get(0).value()).isEqualTo(good);
        assertThat(new String(input.get(0).headers().lastHeader("baton.resent-from").value(), StandardCharsets.UTF_8))
                .isEqualTo("dlq.dead-letters/0/0");
    }
}
