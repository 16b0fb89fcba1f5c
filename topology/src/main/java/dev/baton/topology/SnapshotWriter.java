package dev.baton.topology;

import dev.baton.egress.SnapshotEncoder;
import dev.baton.deadletter.RecordLimit;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.processor.DependencyUnavailableException;
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
public final class SnapshotWriter implements Processor<String, Snapshot, byte[], byte[]> {
    private final SnapshotEncoder encoder;
    private final String topic;
    private final int maxOutputBytes;
    private ProcessorContext<byte[], byte[]> context;

    public SnapshotWriter(SnapshotEncoder encoder, String topic) {
        this(encoder, topic, Integer.MAX_VALUE);
    }

    /** @param maxOutputBytes {@code baton.max-output-bytes}: a larger snapshot is not sent (see {@link RecordLimit}) */
    public SnapshotWriter(SnapshotEncoder encoder, String topic, int maxOutputBytes) {
        this.encoder = encoder;
        this.topic = topic;
        this.maxOutputBytes = maxOutputBytes;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, Snapshot> record) {
        byte[] value;
        try {
            value = encoder.encode(topic, record.value());
        } catch (SchemaRegistryUnavailableException e) {
            throw new DependencyUnavailableException("schema registry unavailable while encoding a snapshot", e);
        }
        byte[] key = record.key().getBytes(StandardCharsets.UTF_8);
        long size = RecordLimit.sizeOf(key, value, record.headers());
        if (size > maxOutputBytes) {
            // not sent: the processing exception handler dead-letters the input record as INTERNAL
            throw new RecordTooLargeForLimitException("the snapshot " + record.value().snapshotId() + " of " + record.key()
                    + " takes " + size + " bytes, more than baton.max-output-bytes (" + maxOutputBytes + "); not sent");
        }
        context.forward(record.withKey(key).withValue(value));
    }
}
