package dev.baton.app;

import dev.baton.config.BatonConfig;
import dev.baton.processor.SessionContextProcessor;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Before {@code baton run} starts: every topic Baton writes to (snapshots, dead letters, and the state changelogs
 * once they exist) must accept a record of {@code baton.max-output-bytes}; a topic whose {@code max.message.bytes}
 * is smaller would refuse a record Baton is allowed to write, so the start fails with a message that says which topic
 * and how to fix it. A topic whose configuration cannot be read (no permission, cluster unreachable) is logged and not
 * checked. Topics that do not exist yet are not checked (Kafka Streams creates the changelogs with the
 * limit; missing output topics fail the start on their own).
 */
public final class TopicLimits {
    private static final Logger LOG = LoggerFactory.getLogger(TopicLimits.class);

    private TopicLimits() {
    }

    /** The topics Baton writes to. */
    public static List<String> outputTopics(BatonConfig config) {
        List<String> topics = new java.util.ArrayList<>(List.of(config.contextSnapshotsTopic(),
                config.deadLettersTopic(),
                config.applicationId() + "-" + SessionContextProcessor.SESSION_STORE + "-changelog",
                config.applicationId() + "-" + SessionContextProcessor.TIMER_STORE + "-changelog"));
        // receipts on: the outcomes topic and the ledger's changelog
        if (config.handoffReceiptsTopic().isPresent()) {
            topics.add(config.handoffOutcomesTopic());
            topics.add(config.applicationId() + "-" + dev.baton.processor.HandoffReceiptProcessor.LEDGER_STORE
                    + "-changelog");
        }
        return List.copyOf(topics);
    }

    /** Throws an {@link AppFailure} naming every topic that cannot take a record of the configured limit. */
    public static void check(BatonConfig config, Duration timeout) {
        Map<String, Object> props = new HashMap<>(config.kafkaProperties());
        props.keySet().retainAll(AdminClientConfig.configNames());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
        try (Admin admin = Admin.create(props)) {
            check(admin, config, timeout);
        }
    }

    static void check(Admin admin, BatonConfig config, Duration timeout) {
        int limit = config.maxOutputBytes();
        List<String> problems = new ArrayList<>();
        for (String topic : outputTopics(config)) {
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config c;
            try {
                c = admin.describeConfigs(List.of(r)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(r);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) continue;
                // e.g. no DescribeConfigs permission: the broker still refuses what is too large, and Baton dead-letters
                // nothing it cannot write; say so instead of refusing to start
                LOG.warn("Cannot check max.message.bytes of topic {}: {}", topic, e.getCause().toString());
                continue;
            } catch (TimeoutException e) {
                LOG.warn("Cannot check max.message.bytes of topic {} within {} s (cluster unreachable?); starting "
                        + "without the check", topic, timeout.toSeconds());
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
            }
            ConfigEntry e = c == null ? null : c.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
            if (e == null || e.value() == null) continue;
            long max = Long.parseLong(e.value());
            if (max < limit) {
                problems.add(topic + " has max.message.bytes=" + max);
            }
        }
        if (!problems.isEmpty()) {
            throw new AppFailure(ExitCodes.FAILED, "topics too small for " + BatonConfig.MAX_OUTPUT_BYTES + "=" + limit
                    + " (from " + config.origin(BatonConfig.MAX_OUTPUT_BYTES) + "): " + String.join(", ", problems)
                    + ". Baton could write records they would refuse. Raise it with kafka-configs.sh --alter "
                    + "--entity-type topics --entity-name TOPIC --add-config max.message.bytes=" + limit
                    + ", or lower " + BatonConfig.MAX_OUTPUT_BYTES + ".");
        }
    }
}
