package dev.baton.cli.data;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;

/**
 * Reads every partition of one topic with an assigned (group-less) consumer: from the beginning, from a time, or from
 * the end; either up to the end offsets seen when it starts ({@link #readToEnd}) or following new records until told
 * to stop ({@link #follow}). Ctrl-C while following ends the loop cleanly: the shutdown hook wakes the consumer and
 * waits for it to close.
 */
public final class TopicReader implements AutoCloseable {

    /** Where reading starts. */
    public enum Start { BEGINNING, END }

    /** Receives records; returns false to stop. */
    public interface Sink {
        boolean accept(ConsumerRecord<byte[], byte[]> record) throws Exception;
    }

    private static final Duration POLL = Duration.ofMillis(500);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final List<TopicPartition> partitions;

    public TopicReader(Properties consumerProperties, String topic, Duration timeout) {
        this.consumer = new KafkaConsumer<>(consumerProperties);
        this.topic = topic;
        List<PartitionInfo> infos;
        try {
            infos = consumer.partitionsFor(topic, timeout);
        } catch (RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            throw new AppFailure(ExitCodes.FAILED, "cannot read topic " + topic + ": " + e.getMessage());
        }
        if (infos == null || infos.isEmpty()) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            throw new AppFailure(ExitCodes.FAILED, "topic " + topic + " does not exist (create it with `baton topics`)");
        }
        this.partitions = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
        consumer.assign(partitions);
    }

    public String topic() {
        return topic;
    }

    public void seek(Start start) {
        if (start == Start.BEGINNING) consumer.seekToBeginning(partitions);
        else consumer.seekToEnd(partitions);
    }

    /** Each partition from its first record at or after {@code epochMillis} (the end where there is none). */
    public void seekToTime(long epochMillis) {
        Map<TopicPartition, Long> query = new HashMap<>();
        partitions.forEach(p -> query.put(p, epochMillis));
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        for (TopicPartition p : partitions) {
            OffsetAndTimestamp o = found.get(p);
            consumer.seek(p, o == null ? ends.get(p) : o.offset());
        }
    }

    /** Seeks one partition to an offset (the others are not read: {@link #only}). */
    public void seek(int partition, long offset) {
        consumer.seek(new TopicPartition(topic, partition), offset);
    }

    /** Reads only these partitions from now on. */
    public void only(List<Integer> partitionNumbers) {
        List<TopicPartition> chosen = partitions.stream().filter(p -> partitionNumbers.contains(p.partition())).toList();
        consumer.assign(chosen);
    }

    /** Every record from the current positions up to the end offsets of now (committed records only). */
    public void readToEnd(Sink sink) throws Exception {
        Map<TopicPartition, Long> ends = new HashMap<>(consumer.endOffsets(consumer.assignment()));
        ends.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
        while (!ends.isEmpty()) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                Long end = ends.get(tp);
                if (end == null || r.offset() >= end) continue;
                if (!sink.accept(r)) return;
            }
            // a transaction marker or an aborted record can be the last offset: the position says when we are done
            ends.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
        }
    }

    /** New records as they come, until the sink says stop or the process is interrupted (Ctrl-C). */
    public void follow(Sink sink) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            consumer.wakeup();
            try {
                done.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "baton-cli-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            while (true) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    if (!sink.accept(r)) return;
                }
            }
        } catch (WakeupException | InterruptException e) {
            // Ctrl-C: stop reading; close() below leaves nothing behind
        } finally {
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down (Ctrl-C): the hook is running
            }
        }
    }

    @Override
    public void close() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
}
