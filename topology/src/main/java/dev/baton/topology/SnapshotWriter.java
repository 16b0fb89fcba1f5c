package dev.baton.topology;

import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.processor.DependencyUnavailableException;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.nio.charset.StandardCharsets;

/**
 * Encodes a snapshot for the snapshots topic: key {@code tenant/session} as UTF-8, value via the
 * {@link SnapshotEncoder} (Avro or JSON). An encoding failure is not caught here: it reaches the processing
 * exception handler ({@link BatonProcessingExceptionHandler}), which dead-letters the input record and continues.
 */
public final class SnapshotWriter implements Processor<String, Snapshot, byte[], byte[]> {
    private final SnapshotEncoder encoder;
    private final String topic;
    private ProcessorContext<byte[], byte[]> context;

    public SnapshotWriter(SnapshotEncoder encoder, String topic) {
        this.encoder = encoder;
        this.topic = topic;
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
        context.forward(record.withKey(record.key().getBytes(StandardCharsets.UTF_8)).withValue(value));
    }
}
