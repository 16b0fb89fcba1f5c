package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.app.StreamsApp;
import dev.baton.service.ops.TopicPlan;
import dev.baton.config.BatonConfig;
import dev.baton.it.KafkaBroker;

/** {@code baton topics} and {@code baton reset} on a real in-process broker. */
class OpsCommandsIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @TempDir
    Path dir;

    private Path config(String applicationId, String prefix) throws Exception {
        Path file = dir.resolve(applicationId + ".properties");
        Files.writeString(file, String.join("\n",
                "application.id=" + applicationId,
                "state.dir=" + dir.resolve("state"),
                "replication.factor=1",
                "num.standby.replicas=0",
                "baton.format=json",
                "baton.topic.session-events=" + prefix + ".session-events",
                "baton.topic.context-snapshots=" + prefix + ".context-snapshots",
                "baton.topic.dead-letters=" + prefix + ".dead-letters",
                "baton.topic.tenant-policies=" + prefix + ".tenant-policies", ""));
        return file;
    }

    private CommandOutput topics(Path config, String... more) {
        return topics(config, 3, more);
    }

    private CommandOutput topics(Path config, int partitions, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("topics", "--bootstrap-servers", kafka.bootstrapServers(),
                "--config", config.toString(), "--partitions", Integer.toString(partitions), "--dead-letter-partitions", "2"));
        if (!List.of(more).contains("--replication-factor")) {
            args.addAll(List.of("--replication-factor", "1"));
        }
        args.addAll(List.of(more));
        return CommandOutput.run(args.toArray(String[]::new));
    }

    private static Set<String> topicNames(Admin admin) throws Exception {
        return admin.listTopics().names().get(30, TimeUnit.SECONDS);
    }

    /**
     * The topic names once all of {@code expected} are listed (within 10 s): a created topic reaches the metadata
     * that answers listTopics asynchronously, so right after creation a listing may lack it.
     */
    private static Set<String> topicNamesOnceListed(Admin admin, String... expected) {
        return Awaitility.await("topics listed: " + List.of(expected)).atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(200)).until(() -> topicNames(admin), names -> names.containsAll(List.of(expected)));
    }

    private static Config topicConfig(Admin admin, String topic) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
    }

    @Test
    void shouldCreateTheTopicsOnceAndRepairTheirConfigs() throws Exception {
        Path config = config("ops-topics", "t1");
        try (Admin admin = kafka.kafka().admin()) {
            CommandOutput dryRun = topics(config, "--dry-run");
            assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
            assertThat(dryRun.outLines()).hasSize(4).allMatch(l -> l.contains("missing, would be created"));
            assertThat(topicNames(admin)).noneMatch(t -> t.startsWith("t1."));
            assertThat(topics(config, "--check").exitCode()).isEqualTo(1);

            CommandOutput create = topics(config);
            assertThat(create.exitCode()).as(create.err()).isZero();
            assertThat(topicNamesOnceListed(admin, "t1.session-events", "t1.context-snapshots", "t1.dead-letters",
                    "t1.tenant-policies")).contains("t1.session-events", "t1.context-snapshots", "t1.dead-letters",
                    "t1.tenant-policies");
            var descriptions = admin.describeTopics(List.of("t1.session-events", "t1.dead-letters", "t1.tenant-policies"))
                    .allTopicNames().get(30, TimeUnit.SECONDS);
            assertThat(descriptions.get("t1.session-events").partitions()).hasSize(3);
            assertThat(descriptions.get("t1.dead-letters").partitions()).hasSize(2);
            assertThat(descriptions.get("t1.tenant-policies").partitions()).hasSize(1);
            assertThat(topicConfig(admin, "t1.tenant-policies").get("cleanup.policy").value()).isEqualTo("compact");
            assertThat(topicConfig(admin, "t1.context-snapshots").get("max.message.bytes").value())
                    .isEqualTo(Integer.toString(TopicPlan.MAX_MESSAGE_BYTES));

            // idempotent: nothing to do the second time
            CommandOutput again = topics(config);
            assertThat(again.exitCode()).as(again.err()).isZero();
            assertThat(again.outLines()).hasSize(4).allMatch(l -> l.contains(": ok ("));
            assertThat(topics(config, "--check").exitCode()).isZero();

            // a config changed behind Baton's back is reported by --check and set back by a plain run
            ConfigResource snapshots = new ConfigResource(ConfigResource.Type.TOPIC, "t1.context-snapshots");
            Map<ConfigResource, Collection<AlterConfigOp>> shrink = Map.of(snapshots,
                    List.of(new AlterConfigOp(new ConfigEntry("max.message.bytes", "100000"), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(shrink).all().get(30, TimeUnit.SECONDS);
            CommandOutput check = topics(config, "--check");
            assertThat(check.exitCode()).isEqualTo(1);
            assertThat(check.out()).contains("t1.context-snapshots: max.message.bytes=100000, would be set to 8388608");
            assertThat(topicConfig(admin, "t1.context-snapshots").get("max.message.bytes").value()).isEqualTo("100000");
            assertThat(topics(config).exitCode()).isZero();
            // a topic config change reaches the broker that answers describeConfigs asynchronously: look again for a
            // bounded while before judging
            Awaitility.await("the repaired max.message.bytes").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> assertThat(
                            topicConfig(admin, "t1.context-snapshots").get("max.message.bytes").value())
                            .isEqualTo(Integer.toString(TopicPlan.MAX_MESSAGE_BYTES)));

            // a partition count that differs is reported, never changed
            CommandOutput morePartitions = topics(config, 5);
            assertThat(morePartitions.exitCode()).isEqualTo(1);
            assertThat(morePartitions.out()).contains("t1.session-events: has 3 partitions, planned 5");
            assertThat(admin.describeTopics(List.of("t1.session-events")).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get("t1.session-events").partitions()).hasSize(3);
        }
    }

    @Test
    void shouldResetOffsetsInternalTopicsAndLocalStateOnlyWhenStopped() throws Exception {
        String app = "ops-reset";
        Path config = config(app, "t2");
        assertThat(topics(config).exitCode()).isZero();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null))) {
            for (int seq = 0; seq < 3; seq++) {
                String event = "{\"event_id\":\"e" + seq + "\",\"tenant_id\":\"acme\",\"session_id\":\"s-1\","
                        + "\"occurred_at\":\"2026-11-30T09:00:0" + seq + "Z\",\"turn\":{\"seq\":" + seq
                        + ",\"agent\":\"a\",\"role\":\"USER\",\"text\":\"hello " + seq + "\"}}";
                producer.send(new ProducerRecord<>("t2.session-events", "acme/s-1".getBytes(StandardCharsets.UTF_8),
                        event.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        BatonConfig batonConfig = BatonConfig.builder().file(config).set("bootstrap.servers", kafka.bootstrapServers()).build();
        Path localState = dir.resolve("state").resolve(app);
        try (Admin admin = kafka.kafka().admin(); StreamsApp streams = new StreamsApp(batonConfig)) {
            streams.start();
            streams.awaitRunning(Duration.ofSeconds(60));
            Awaitility.await("3 committed offsets").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> committed(admin, app) >= 3);
            assertThat(committed(admin, app)).isEqualTo(3);
            // an instance is running: refused in one line, no stack trace, nothing changed
            CommandOutput refused = reset(config);
            assertThat(refused.exitCode()).isEqualTo(1);
            assertThat(refused.out()).isEmpty();
            assertThat(refused.err().lines().toList()).singleElement().asString()
                    .startsWith("baton: refused: ops-reset is still running (1 consumer(s) in its group")
                    .endsWith("stop every instance, then run reset again");
            assertThat(committed(admin, app)).isEqualTo(3);
            assertThat(localState).isDirectory();
        }
        try (Admin admin = kafka.kafka().admin()) {
            assertThat(topicNames(admin)).anyMatch(t -> t.startsWith(app + "-") && t.endsWith("-changelog"));
            assertThat(localState).isDirectory();

            CommandOutput dryRun = reset(config, "--dry-run");
            assertThat(dryRun.exitCode()).as(dryRun.out() + dryRun.err()).isZero();
            assertThat(dryRun.out()).contains("would be deleted");
            assertThat(committed(admin, app)).isEqualTo(3);
            assertThat(topicNames(admin)).anyMatch(t -> t.startsWith(app + "-") && t.endsWith("-changelog"));
            assertThat(localState).isDirectory();

            CommandOutput done = reset(config);
            assertThat(done.exitCode()).as(done.out() + done.err()).isZero();
            assertThat(committed(admin, app)).isZero();
            Awaitility.await("the internal topics deleted").atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(topicNames(admin)).noneMatch(t -> t.startsWith(app + "-")));
            assertThat(localState).doesNotExist();
            // the input and output topics are untouched
            assertThat(topicNames(admin)).contains("t2.session-events", "t2.context-snapshots");
        }
    }

    @Test
    void shouldRunTheHelpsFirstExampleWithoutARegistryAndDefaultTheReplicationFactorToOneBroker() throws Exception {
        // the help's own first example: no --config, no registry URL, the default (avro) format
        CommandOutput example = CommandOutput.run("topics", "--bootstrap-servers", kafka.bootstrapServers(), "--dry-run");
        assertThat(example.exitCode()).as(example.err()).isZero();
        assertThat(example.outLines()).hasSize(4)
                .allMatch(l -> l.contains("missing, would be created") && l.contains("replication factor 1,"));
        assertThat(example.out()).doesNotContain(": missing, created");

        Path config = config("ops-rf", "t4");
        CommandOutput create = CommandOutput.run("topics", "--bootstrap-servers", kafka.bootstrapServers(), "--config",
                config.toString(), "--partitions", "2", "--dead-letter-partitions", "1");
        assertThat(create.exitCode()).as(create.err()).isZero();
        assertThat(create.outLines()).hasSize(4).allMatch(l -> l.contains(": missing, created with")
                && l.contains("replication factor 1,"));
        try (Admin admin = kafka.kafka().admin()) {
            topicNamesOnceListed(admin, "t4.session-events");
            assertThat(admin.describeTopics(List.of("t4.session-events")).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get("t4.session-events").partitions().get(0).replicas()).hasSize(1);
        }
    }

    @Test
    void shouldRefuseAReplicationFactorTheClusterCannotHoldBeforeCreatingAnything() throws Exception {
        Path config = config("ops-rf3", "t5");
        CommandOutput refused = topics(config, 3, "--replication-factor", "3");
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.out()).doesNotContain("created");
        assertThat(refused.err().lines().toList()).singleElement().asString()
                .contains("replication factor 3 needs at least 3 brokers; the cluster has 1").contains("nothing was created");
        try (Admin admin = kafka.kafka().admin()) {
            assertThat(topicNames(admin)).noneMatch(t -> t.startsWith("t5."));
        }
    }

    @Test
    void shouldReportDriftWithCheckAndChangeNothing() throws Exception {
        Path config = config("ops-drift", "t6");
        assertThat(topics(config).exitCode()).isZero();
        try (Admin admin = kafka.kafka().admin()) {
            topicNamesOnceListed(admin, "t6.session-events", "t6.context-snapshots", "t6.dead-letters", "t6.tenant-policies");
            admin.deleteTopics(List.of("t6.tenant-policies")).all().get(30, TimeUnit.SECONDS);
            ConfigResource deadLetters = new ConfigResource(ConfigResource.Type.TOPIC, "t6.dead-letters");
            admin.incrementalAlterConfigs(Map.of(deadLetters, List.of(new AlterConfigOp(
                    new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
            Awaitility.await("the deletion and the config change visible").atMost(Duration.ofSeconds(10))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
                    .until(() -> !topicNames(admin).contains("t6.tenant-policies")
                            && "compact".equals(topicConfig(admin, "t6.dead-letters").get("cleanup.policy").value()));

            // planned: 4 partitions (they have 3) and replication factor 2 (they have 1)
            CommandOutput check = topics(config, 4, "--check", "--replication-factor", "2");
            assertThat(check.exitCode()).isEqualTo(1);
            assertThat(check.out()).contains("t6.tenant-policies: missing")
                    .contains("t6.session-events: has 3 partitions, planned 4")
                    .contains("has replication factor 1, planned 2")
                    .contains("t6.dead-letters: has replication factor 1, planned 2")
                    .contains("cleanup.policy=compact, would be set to delete");
            assertThat(check.err().lines().toList()).singleElement().asString().contains("(drift, see above)");
            assertThat(topicNames(admin)).doesNotContain("t6.tenant-policies");
            assertThat(topicConfig(admin, "t6.dead-letters").get("cleanup.policy").value()).isEqualTo("compact");
        }
    }

    /**
     * An unreachable broker, run as the container image runs the commands (its entry point, ServiceCommand, in a JVM
     * of its own with the production logging configuration): one line on stderr, exit 1, within the --timeout given
     * (the deadline below is generous: it bounds a JVM start and the timeout, it measures nothing).
     */
    @Test
    void shouldReportAnUnreachableBrokerInOneLineFromTheImagesEntryPoint() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        for (String command : List.of("topics", "reset")) {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "-Dlog4j2.configurationFile=log4j2.properties",
                    "dev.baton.service.command.ServiceCommand", command, "--bootstrap-servers", "127.0.0.1:" + closedPort,
                    "--timeout", "3").redirectErrorStream(false).start();
            p.getOutputStream().close();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(command + " finished").isTrue();
            assertThat(p.exitValue()).as(command + ": " + err.get()).isEqualTo(1);
            assertThat(out.get()).as(command).isEmpty();
            assertThat(err.get().lines().toList()).as(command).singleElement().asString()
                    .startsWith("baton: ").contains("did not answer within 3 s").contains("127.0.0.1:" + closedPort);
        }
    }

    private static String read(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void shouldResetAnApplicationThatNeverRan() throws Exception {
        Path config = config("ops-never-ran", "t7");
        assertThat(topics(config).exitCode()).isZero();
        CommandOutput dryRun = reset(config, "--dry-run");
        assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
        assertThat(dryRun.out()).contains("Internal topics of ops-never-ran: none");
        CommandOutput done = reset(config);
        assertThat(done.exitCode()).as(done.err()).isZero();
        assertThat(done.err()).isEmpty();
    }

    private CommandOutput reset(Path config, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("reset", "--bootstrap-servers", kafka.bootstrapServers(),
                "--config", config.toString()));
        args.addAll(List.of(more));
        return CommandOutput.run(args.toArray(String[]::new));
    }

    /** The sum of the group's committed offsets on the input topic. */
    private static long committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        return offsets.entrySet().stream().filter(e -> e.getKey().topic().equals("t2.session-events") && e.getValue() != null)
                .mapToLong(e -> e.getValue().offset()).sum();
    }
}
