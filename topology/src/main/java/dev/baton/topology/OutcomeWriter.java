package dev.baton.topology;

import dev.baton.egress.OutcomeEncoder;
import dev.baton.processor.DependencyUnavailableException;
import dev.baton.processor.JoinedOutcome;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.nio.charset.StandardCharsets;

/** Encodes a {@link JoinedOutcome} for the outcomes topic: key {@code tenant/session} as UTF-8, value Avro or JSON. */
public final class OutcomeWriter implements Processor<String, JoinedOutcome, byte[], byte[]> {
    private final OutcomeEncoder encoder;
    private final String topic;
    private ProcessorContext<byte[], byte[]> context;

    public OutcomeWriter(OutcomeEncoder encoder, String topic) {
        this.encoder = encoder;
        this.topic = topic;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, JoinedOutcome> record) {
        byte[] value;
        try {
            value = encoder.encode(topic, record.value());
        } catch (SchemaRegistryUnavailableException e) {
            throw new DependencyUnavailableException("schema registry unavailable while encoding an outcome", e);
        }
        context.forward(record.withKey(record.key().getBytes(StandardCharsets.UTF_8)).withValue(value));
    }
}
