package dev.baton.topology;

import dev.baton.egress.SnapshotEncoder;
import dev.baton.deadletter.RecordLimit;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.model.SessionKey;
import dev.baton.processor.DependencyUnavailableException;
import dev.baton.processor.SnapshotEmitted;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.nio.charset.StandardCharsets;

/**
 * Encodes a snapshot for the snapshots topic: key {@code tenant/session} as UTF-8, value via the
 * {@link SnapshotEncoder} (Avro or JSON). A snapshot larger than {@code baton.max-output-bytes} is not sent
 * ({@link RecordTooLargeForLimitException}). An encoding failure is not caught here: it reaches the processing
 * exception handler ({@link BatonProcessingExceptionHandler}), which dead-letters the input record and continues.
 */
public final class SnapshotWriter implements Processor<String, Snapshot, Object, Object> {
    private final SnapshotEncoder encoder;
    private final String topic;
    private final int maxOutputBytes;
    private String receiptChild;
    private String sinkChild;
    private ProcessorContext<Object, Object> context;

    public SnapshotWriter(SnapshotEncoder encoder, String topic) {
        this(encoder, topic, Integer.MAX_VALUE);
    }

    /** @param maxOutputBytes {@code baton.max-output-bytes}: a larger snapshot is not sent (see {@link RecordLimit}) */
    public SnapshotWriter(SnapshotEncoder encoder, String topic, int maxOutputBytes) {
        this.encoder = encoder;
        this.topic = topic;
        this.maxOutputBytes = maxOutputBytes;
    }

    /**
     * Also tells {@code receiptChild} (the {@code HandoffReceiptProcessor}) about every snapshot written, as a
     * {@link SnapshotEmitted}; the snapshot bytes go to {@code sinkChild}.
     */
    public SnapshotWriter withReceipts(String sinkChild, String receiptChild) {
        this.sinkChild = sinkChild;
        this.receiptChild = receiptChild;
        return this;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, Snapshot> record) {
        SnapshotEncoder.Encoded encoded;
        try {
            encoded = encoder.encodeHashed(topic, record.value());
        } catch (SchemaRegistryUnavailableException e) {
            throw new DependencyUnavailableException("schema registry unavailable while encoding a snapshot", e);
        }
        byte[] value = encoded.value();
        byte[] key = record.key().getBytes(StandardCharsets.UTF_8);
        long size = RecordLimit.sizeOf(key, value, record.headers());
        if (size > maxOutputBytes) {
            // not sent: the processing exception handler dead-letters the input record as INTERNAL
            throw new RecordTooLargeForLimitException("the snapshot " + record.value().snapshotId() + " of " + record.key()
                    + " takes " + size + " bytes, more than baton.max-output-bytes (" + maxOutputBytes + "); not sent");
        }
        if (receiptChild == null) {
            context.forward(record.withKey(key).withValue(value));
            return;
        }
        context.forward(record.withKey(key).withValue(value), sinkChild);
        context.forward(new Record<>(record.key(), emitted(record.value(), encoded, value.length), record.timestamp()),
                receiptChild);
    }

    /** What the receipts join needs to know of a written snapshot. */
    static SnapshotEmitted emitted(Snapshot s, SnapshotEncoder.Encoded encoded, long bytes) {
        var stats = s.stats();
        long transcript = (stats.messageChars() + 3) / 4;
        long brick = (stats.brickChars() + 3) / 4;
        String exact = null;
        if (stats.tokenCounts() != null && !stats.tokenCounts().isEmpty()) {
            var first = stats.tokenCounts().get(0);
            exact = first.encoding();
            transcript = first.transcriptTokens();
            brick = first.brickTokens();
        }
        return new SnapshotEmitted(SessionKey.of(s.tenantId(), s.sessionId()), s.handoffId(), encoded.contentSha256(),
                s.fromAgent(), s.toAgent(), s.asOfSeq(), bytes, stats.messageChars(), stats.brickChars(), transcript,
                brick, exact);
    }
}
