package dev.baton.replay;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.config.BatonConfig;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.processor.SessionContextProcessor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongConsumer;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Utils;

/**
 * One {@link Replay#run}: the sender, the follower and the matcher. It sends the input records, each to the partition
 * its key hashes to (so the offset of every record is known when it is sent), then one settle record per session;
 * meanwhile it follows the application's committed offsets ({@link InFlightWindow} per partition: what is sent and
 * not yet committed) and reads the output topics, matches each snapshot (by snapshot id, to the earliest open
 * hand-off of that id) and dead letter (by input partition and offset) to its input record, and hands them to the
 * sink in input order through the reorder buffers ({@link OrderedSpool}). See {@link Replay} for when a hand-off is
 * known to be done and what bounds memory.
 */
final class ReplayRun implements AutoCloseable {
    private final ReplayCluster cluster;
    private final BatonConfig config;
    private final Function<byte[], String> snapshotIdOf;
    private final Replay.Sink sink;
    private final LongConsumer processed;
    private final InFlightWindow[] windows;
    /** Receipts sent to each partition of the receipts topic and not yet committed (empty when receipts are off). */
    private final InFlightWindow[] receiptWindows;
    private final List<TopicPartition> receiptPartitions = new ArrayList<>();
    /** Outcomes read (receipts on), in the order read; sorted and handed over at the end. */
    private final List<Outcome> outcomes = new ArrayList<>();
    /** Receipts on: the input position of the hand-off of every snapshot written, by snapshot id. */
    private final Map<String, Long> snapshotPositions = new HashMap<>();
    private final Map<String, ArrayDeque<InFlightWindow.Entry>> open = new HashMap<>();
    private final TreeMap<Long, InFlightWindow.Entry> parked = new TreeMap<>();
    private final OrderedSpool snapshots;
    private final OrderedSpool deadLetters;
    private final SessionKeys sessionKeys;
    private final Admin admin;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<TopicPartition> inputPartitions = new ArrayList<>();
    private final Map<String, Long> codes = new TreeMap<>();
    private long inFlight;
    private long inFlightBytes;
    private long nextPosition = Long.MIN_VALUE;
    private long records;
    private long committedRecords;
    private long rejected;
    private long sessions;
    private long snapshotCount;
    private long noOutput;
    private long unmatched;
    private long unplaced;
    private long lastStepNanos;
    private long lastPurgeNanos;
    private long brokerDiskPeak = -1;
    private final Map<TopicPartition, Long> readPositions = new HashMap<>();

    ReplayRun(ReplayCluster cluster, int partitions, Function<byte[], String> snapshotIdOf, Replay.Sink sink,
              LongConsumer processed) {
        this.cluster = cluster;
        this.config = cluster.config();
        this.windows = new InFlightWindow[partitions];
        this.snapshots = new OrderedSpool(cluster.workDir(), "snapshots", Replay.SPOOL_MEMORY_BYTES);
        this.deadLetters = new OrderedSpool(cluster.workDir(), "dead-letters", Replay.SPOOL_MEMORY_BYTES);
        this.sessionKeys = new SessionKeys(cluster.workDir().resolve("sessions"));
        this.admin = cluster.admin();
        this.consumer = cluster.outputConsumer();
        this.snapshotIdOf = snapshotIdOf;
        this.sink = sink;
        this.processed = processed;
        for (int p = 0; p < windows.length; p++) {
            windows[p] = new InFlightWindow();
            inputPartitions.add(new TopicPartition(config.sessionEventsTopic(), p));
        }
        boolean receipts = config.handoffReceiptsTopic().isPresent();
        this.receiptWindows = new InFlightWindow[receipts ? partitions : 0];
        for (int p = 0; p < receiptWindows.length; p++) {
            receiptWindows[p] = new InFlightWindow();
            receiptPartitions.add(new TopicPartition(config.handoffReceiptsTopic().orElseThrow(), p));
        }
        List<TopicPartition> outputs = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            outputs.add(new TopicPartition(config.contextSnapshotsTopic(), p));
            outputs.add(new TopicPartition(config.deadLettersTopic(), p));
            if (receipts) {
                outputs.add(new TopicPartition(config.handoffOutcomesTopic(), p));
            }
        }
        consumer.assign(outputs);
        consumer.seekToBeginning(outputs);
    }

    Replay.Result execute(Replay.Source source, Duration timeout) throws IOException {
        Replay.Item item;
        while ((item = source.next()) != null) {
            if (item.position() <= nextPosition) {
                throw new IllegalArgumentException("input positions must increase: " + item.position()
                    + " after " + nextPosition);
            }
            nextPosition = item.position();
            if (item instanceof Replay.Reject r) {
                deadLetters.add(r.position(), DeadLetterSpoolCodec.encode(r.deadLetter()));
                codes.merge(r.deadLetter().code(), 1L, Long::sum);
                records++;
                rejected++;
            } else if (item instanceof Replay.Receipt r) {
                sendReceipt(r);
                records++;
            } else {
                Replay.Send s = (Replay.Send) item;
                send(s);
                records++;
                String key = s.key() == null ? null : new String(s.key(), StandardCharsets.UTF_8);
                if (Replay.isSessionKey(key)) {
                    sessionKeys.add(key);
                }
            }
            maybeStep(false);
        }
        // the end of the input: settle every session now (gaps, waiting hand-offs) instead of waiting for the clock
        sessionKeys.finish();
        for (String key : sessionKeys) {
            settle(key);
            sessions++;
            maybeStep(false);
        }
        for (String key : sessionKeys) {
            for (Replay.Item after : source.afterSettle(key)) {
                if (after.position() <= nextPosition || !(after instanceof Replay.Send s)) {
                    throw new IllegalArgumentException("an item after the settle must be a record to send, "
                        + "positioned after the input");
                }
                nextPosition = after.position();
                send(s);
                maybeStep(false);
            }
        }
        nextPosition = Replay.NO_POSITION;
        // the last record of each partition asks Kafka Streams to commit once it is processed: the replay follows the
        // committed offsets, and would otherwise wait for the next commit interval
        for (int p = 0; p < windows.length; p++) {
            requestCommit(p);
        }
        cluster.producer().flush();
        throwIfSendFailed();
        PhaseClock.mark("input-sent");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (inFlight > 0) {
            if (System.nanoTime() > deadline) {
                throw new AppFailure(ExitCodes.INCOMPLETE, "the topology had not processed the whole input after "
                    + timeout + " (" + committedRecords + " of " + records + " records); use --timeout to wait "
                    + "longer.");
            }
            // not sooner: each look costs an offsets request and an end-offsets request (tried: every 20 ms cost
            // 0.5-1 s more CPU on a 1,000-record backfill for at most 80 ms less wall time)
            sleep(100);
            maybeStep(true);
        }
        PhaseClock.mark("processed");
        step();
        // every session is settled: a hand-off still open now will never be answered
        for (InFlightWindow.Entry e : parked.values()) {
            noOutput++;
            closeOpen(e);
        }
        parked.clear();
        snapshots.drainAll(this::emitSnapshot);
        deadLetters.drainAll(this::emitDeadLetter);
        // every receipt is committed, so every outcome is read. Ordered by the input position of the hand-off whose
        // snapshot it joins; a snapshot's outcomes come from one partition (keyed by session) in the order its
        // receipts were processed, which the stable sort keeps
        outcomes.sort(java.util.Comparator.comparingLong(
            o -> snapshotPositions.getOrDefault(o.snapshotId(), Replay.NO_POSITION)));
        for (Outcome o : outcomes) {
            sink.outcome(o.value());
        }
        PhaseClock.mark("output-read");
        return new Replay.Result(records, sessions, snapshotCount, codes, noOutput, unmatched, unplaced,
            cluster.app().batonCounters(), snapshots.spilledBytes() + deadLetters.spilledBytes(), brokerDiskPeak);
    }

    private void send(Replay.Send s) {
        int partition = s.key() == null
            ? (int) Math.floorMod(s.position(), (long) windows.length)
            : Utils.toPositive(Utils.murmur2(s.key())) % windows.length;
        RecordHeaders headers = new RecordHeaders();
        if (s.sourceLine() >= 0) {
            headers.add(Replay.SOURCE_LINE_HEADER, Long.toString(s.sourceLine()).getBytes(StandardCharsets.UTF_8));
        }
        InFlightWindow.Entry entry = new InFlightWindow.Entry(s.position(), s.snapshotId(), s.mayWait(),
            (s.key() == null ? 0 : s.key().length) + (s.value() == null ? 0 : s.value().length));
        if (s.snapshotId() != null) {
            open.computeIfAbsent(s.snapshotId(), k -> new ArrayDeque<>(1)).add(entry);
        }
        produce(new ProducerRecord<>(config.sessionEventsTopic(), partition, null, s.key(), s.value(), headers),
            windows[partition], entry);
    }

    private void sendReceipt(Replay.Receipt r) {
        int partition = r.key() == null
            ? (int) Math.floorMod(r.position(), (long) receiptWindows.length)
            : Utils.toPositive(Utils.murmur2(r.key())) % receiptWindows.length;
        RecordHeaders headers = new RecordHeaders();
        headers.add(Replay.SOURCE_LINE_HEADER, Long.toString(r.sourceLine()).getBytes(StandardCharsets.UTF_8));
        InFlightWindow.Entry entry = new InFlightWindow.Entry(r.position(), null, false,
            (r.key() == null ? 0 : r.key().length) + r.value().length);
        produce(new ProducerRecord<>(config.handoffReceiptsTopic().orElseThrow(), partition, null, r.key(), r.value(),
            headers), receiptWindows[partition], entry);
    }

    private void settle(String sessionKey) {
        byte[] key = sessionKey.getBytes(StandardCharsets.UTF_8);
        int partition = Utils.toPositive(Utils.murmur2(key)) % windows.length;
        RecordHeaders headers = new RecordHeaders();
        headers.add(SessionContextProcessor.CONTROL_HEADER,
            SessionContextProcessor.SETTLE.getBytes(StandardCharsets.UTF_8));
        produce(new ProducerRecord<>(config.sessionEventsTopic(), partition, null, key, new byte[0], headers),
            windows[partition], new InFlightWindow.Entry(Replay.NO_POSITION, null, false, key.length));
    }

    private void requestCommit(int partition) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(SessionContextProcessor.CONTROL_HEADER, SessionContextProcessor.COMMIT.getBytes(StandardCharsets.UTF_8));
        produce(new ProducerRecord<>(config.sessionEventsTopic(), partition, null, null, new byte[0], headers),
            windows[partition], new InFlightWindow.Entry(Replay.NO_POSITION, null, false, 0));
    }

    private void produce(ProducerRecord<byte[], byte[]> record, InFlightWindow window, InFlightWindow.Entry entry) {
        while (inFlight >= Replay.MAX_IN_FLIGHT || inFlightBytes >= Replay.MAX_IN_FLIGHT_BYTES) {
            // the broker holds what the application has not read yet; the replay keeps only a bounded window
            sleep(50);
            maybeStep(true);
        }
        throwIfSendFailed();
        window.add(entry);
        inFlight++;
        inFlightBytes += entry.bytes;
        cluster.producer().send(record, (meta, e) -> {
            if (e != null) {
                cluster.sendFailure.compareAndSet(null, e);
            }
        });
    }

    private void throwIfSendFailed() {
        Exception e = cluster.sendFailure.get();
        if (e != null) {
            throw new AppFailure(ExitCodes.FAILED, "cannot write to " + config.sessionEventsTopic() + ": "
                + e.getMessage(), e);
        }
        cluster.throwIfFailed();
    }

    private void maybeStep(boolean force) {
        long now = System.nanoTime();
        if (force || now - lastStepNanos > 250_000_000L) {
            lastStepNanos = now;
            try {
                step();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Follows the committed offsets, reads the outputs, and hands over what is in order. */
    private void step() throws IOException {
        throwIfSendFailed();
        Map<TopicPartition, Long> committed = committedOffsets();
        readOutputs();
        for (int p = 0; p < windows.length; p++) {
            long c = committed.getOrDefault(inputPartitions.get(p), 0L);
            InFlightWindow w = windows[p];
            while (w.size() > 0 && w.baseOffset < c) {
                commit(w.poll());
            }
        }
        for (int p = 0; p < receiptWindows.length; p++) {
            long c = committed.getOrDefault(receiptPartitions.get(p), 0L);
            InFlightWindow w = receiptWindows[p];
            while (w.size() > 0 && w.baseOffset < c) {
                commit(w.poll());
            }
        }
        long watermark = Math.min(nextPosition + 1, lowestInFlight());
        if (nextPosition == Replay.NO_POSITION) {
            watermark = lowestInFlight();
        }
        deadLetters.drainBelow(watermark, this::emitDeadLetter);
        long snapshotWatermark = parked.isEmpty() ? watermark : Math.min(watermark, parked.firstKey());
        snapshots.drainBelow(snapshotWatermark, this::emitSnapshot);
        processed.accept(committedRecords + rejected);
        purge(committed);
    }

    private long lowestInFlight() {
        long low = Replay.NO_POSITION;
        for (InFlightWindow w : receiptWindows) {
            InFlightWindow.Entry first = w.first();
            if (first != null && first.position < low) {
                low = first.position;
            }
        }
        for (InFlightWindow w : windows) {
            InFlightWindow.Entry first = w.first();
            if (first != null && first.position < low) {
                low = first.position;
            }
        }
        return low;
    }

    private void commit(InFlightWindow.Entry e) {
        inFlight--;
        inFlightBytes -= e.bytes;
        if (e.position != Replay.NO_POSITION) {
            committedRecords++;
        }
        if (e.snapshotId == null || e.resolved) {
            return;
        }
        if (e.mayWait) {
            parked.put(e.position, e); // may be waiting for turns: open until its snapshot comes
        } else {
            e.resolved = true;       // processed without an answer: a duplicate hand-off id
            noOutput++;
            closeOpen(e);
        }
    }

    private void closeOpen(InFlightWindow.Entry e) {
        ArrayDeque<InFlightWindow.Entry> q = open.get(e.snapshotId);
        if (q != null) {
            q.remove(e);
            if (q.isEmpty()) {
                open.remove(e.snapshotId);
            }
        }
    }

    private Map<TopicPartition, Long> committedOffsets() {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin
                .listConsumerGroupOffsets(config.applicationId()).partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> out = new HashMap<>();
            offsets.forEach((tp, o) -> {
                if (o != null) {
                    out.put(tp, o.offset());
                }
            });
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AppFailure(ExitCodes.FAILED, "cannot follow the application's progress: " + e, e);
        }
    }

    /** Reads both output topics to their current ends. */
    private void readOutputs() throws IOException {
        Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(60));
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (!reached(ends)) {
            if (System.nanoTime() > deadline) {
                throw new AppFailure(ExitCodes.FAILED, "cannot read the output topics to their end");
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                if (r.topic().equals(config.contextSnapshotsTopic())) {
                    onSnapshot(r.value());
                } else if (r.topic().equals(config.handoffOutcomesTopic())) {
                    onOutcome(r);
                } else {
                    onDeadLetter(r);
                }
            }
        }
        for (TopicPartition tp : consumer.assignment()) {
            readPositions.put(tp, consumer.position(tp));
        }
    }

    private boolean reached(Map<TopicPartition, Long> ends) {
        for (var e : ends.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void onSnapshot(byte[] value) throws IOException {
        String id = snapshotIdOf.apply(value);
        ArrayDeque<InFlightWindow.Entry> q = open.get(id);
        InFlightWindow.Entry e = q == null ? null : q.pollFirst();
        if (e == null) {
            unmatched++;
            return;
        }
        if (q.isEmpty()) {
            open.remove(id);
        }
        e.resolved = true;
        parked.remove(e.position);
        if (receiptWindows.length > 0) {
            snapshotPositions.put(id, e.position);
        }
        snapshots.add(e.position, value);
    }

    private void onDeadLetter(ConsumerRecord<byte[], byte[]> r) throws IOException {
        Map<String, String> headers = new HashMap<>();
        for (Header h : r.headers()) {
            headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
        }
        Replay.ReportedDeadLetter dl = new Replay.ReportedDeadLetter(headers.get(DeadLetterHeaders.CODE),
            headers.get(DeadLetterHeaders.MESSAGE), r.key(), r.value(), r.value() == null ? 0 : r.value().length);
        InFlightWindow.Entry e = null;
        try {
            int partition = Integer.parseInt(headers.get(DeadLetterHeaders.SOURCE_PARTITION));
            long offset = Long.parseLong(headers.get(DeadLetterHeaders.SOURCE_OFFSET));
            String topic = headers.get(DeadLetterHeaders.SOURCE_TOPIC);
            if (config.sessionEventsTopic().equals(topic) && partition >= 0 && partition < windows.length) {
                e = windows[partition].at(offset);
            } else if (config.handoffReceiptsTopic().map(t -> t.equals(topic)).orElse(false)
                && partition >= 0 && partition < receiptWindows.length) {
                e = receiptWindows[partition].at(offset);
            }
        } catch (RuntimeException noSource) {
            // a dead letter that names no input record: counted below
        }
        if (e == null || e.position == Replay.NO_POSITION) {
            unplaced++;
            deadLetters.add(Replay.NO_POSITION, DeadLetterSpoolCodec.encode(dl));
            return;
        }
        if (e.snapshotId != null && !e.resolved) {
            e.resolved = true;
            parked.remove(e.position);
            closeOpen(e);
        }
        codes.merge(dl.code(), 1L, Long::sum);
        deadLetters.add(e.position, DeadLetterSpoolCodec.encode(dl));
    }

    /** An outcome of the receipts and the snapshot it joins. */
    private record Outcome(String snapshotId, byte[] value) {
    }

    private void onOutcome(ConsumerRecord<byte[], byte[]> r) {
        // an outcome's first field is snapshot_id, as a snapshot's is
        outcomes.add(new Outcome(snapshotIdOf.apply(r.value()), r.value()));
    }

    private void emitSnapshot(long position, byte[] value) throws IOException {
        snapshotCount++;
        sink.snapshot(position, value);
    }

    private void emitDeadLetter(long position, byte[] encoded) throws IOException {
        sink.deadLetter(position, DeadLetterSpoolCodec.decode(encoded));
    }

    /** Deletes what is consumed (input below the committed offsets, output already read) every few seconds. */
    private void purge(Map<TopicPartition, Long> committed) {
        long now = System.nanoTime();
        if (now - lastPurgeNanos < 5_000_000_000L) {
            return;
        }
        lastPurgeNanos = now;
        Map<TopicPartition, RecordsToDelete> deletions = new HashMap<>();
        committed.forEach((tp, offset) -> {
            if (tp.topic().equals(config.sessionEventsTopic()) && offset > 0) {
                deletions.put(tp, RecordsToDelete.beforeOffset(offset));
            }
        });
        readPositions.forEach((tp, offset) -> {
            if (offset > 0) {
                deletions.put(tp, RecordsToDelete.beforeOffset(offset));
            }
        });
        try {
            admin.deleteRecords(deletions).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            // disk is reclaimed a little later, that is all
        }
        brokerDiskPeak = Math.max(brokerDiskPeak, cluster.brokerDiskUsage());
    }

    @Override
    public void close() {
        snapshots.close();
        deadLetters.close();
        sessionKeys.close();
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5))); // no group: nothing to leave
        admin.close(Duration.ofSeconds(5));
        PhaseClock.mark("run-close");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
        }
    }
}
