package dev.baton.bench;

import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.processor.InboundEvent;
import dev.baton.replay.embedded.EmbeddedKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * How many value bytes Baton emits for each hand-off of an input topic, known before any application is timed: the
 * topic is read back and every session's events applied with the engine itself, in offset order, as Baton's session
 * processor does (the default policy of the configuration, the state's input range set from the record's topic,
 * partition and offset before rendering), each ready hand-off rendered and encoded with Baton's snapshot encoder.
 * The store-and-emit floor ({@link StoreAndEmitFloor}) then emits one record of exactly that many bytes per hand-off;
 * the harness checks afterwards that Baton's output holds the same number of values of the same total size.
 *
 * <p>Keys: the session key, a 0 byte, the hand-off id (a snapshot released later than its hand-off, e.g. after a gap
 * closed, is still counted under its hand-off: the floor emits at the hand-off event).
 */
final class EmittedSizes {
    private final Map<String, Integer> sizes;
    private final long total;

    private EmittedSizes(Map<String, Integer> sizes, long total) {
        this.sizes = sizes;
        this.total = total;
    }

    /** The value size Baton emits for this session's hand-off. */
    int of(String sessionKey, String handoffId) {
        Integer n = sizes.get(key(sessionKey, handoffId));
        if (n == null) throw new IllegalStateException("no emitted size for hand-off " + handoffId + " of " + sessionKey);
        return n;
    }

    int count() {
        return sizes.size();
    }

    long totalBytes() {
        return total;
    }

    private static String key(String sessionKey, String handoffId) {
        return sessionKey + '\0' + handoffId;
    }

    /**
     * Reads {@code topic} (all of it, now) and renders every hand-off in it; {@code nowMillis} stands in for the
     * wall clock the processor reads (no session here waits or expires).
     */
    static EmittedSizes render(EmbeddedKafka kafka, String topic, SessionEventDecoder decoder, SnapshotEncoder encoder,
                               String outputTopic, Policy policy) {
        long nowMillis = System.currentTimeMillis();
        Map<String, SessionState> states = new HashMap<>();
        Map<String, Integer> sizes = new HashMap<>();
        long total = 0;
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 * 1024 * 1024));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
            // a session lives in one partition: per-partition order is the processor's order for each session
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    Decoded d = decoder.decode(r.key(), r.value());
                    if (!d.accepted()) throw new IllegalStateException("unreadable input record: " + d.message());
                    InboundEvent ev = d.event();
                    String sessionKey = ev.sessionKey();
                    SessionState state = states.computeIfAbsent(sessionKey, k -> SessionState.empty());
                    state.touch(nowMillis);
                    List<ReadyHandoff> ready;
                    if (ev.turn() != null) {
                        ready = state.offerTurn(ev.turn(), policy, nowMillis).released();
                    } else if (ev.handoff() != null) {
                        ready = state.offerHandoff(ev.handoff(), ev.occurredAtMillis(), policy, nowMillis).ready();
                    } else {
                        state.close(nowMillis);
                        ready = List.of();
                    }
                    InputRange before = state.inputRange();
                    state.inputRange(new InputRange(r.topic(), r.partition(),
                            before == null ? r.offset() : before.firstOffset(), r.offset(), null, null));
                    for (ReadyHandoff h : ready) {
                        // As the processor does: the emitted snapshot's print is remembered, so the receiver's next
                        // snapshot carries its stats.stable_prefix_chars (and its size counts it).
                        ContextEngine.Rendered rendered = ContextEngine.renderWithPrint(ev.tenantId(), ev.sessionId(),
                                state, h, policy, Tokenizers.none(), LayoutCache.none());
                        if (rendered.print() != null) state.rememberPrint(h.handoff().toAgent(), rendered.print());
                        Snapshot s = rendered.snapshot().withProvenance(state.inputRange());
                        int n = encoder.encode(outputTopic, s).length;
                        sizes.put(key(sessionKey, h.handoff().handoffId()), n);
                        total += n;
                    }
                }
            }
        }
        return new EmittedSizes(sizes, total);
    }
}
