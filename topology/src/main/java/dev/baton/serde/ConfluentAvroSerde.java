package dev.baton.serde;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A Kafka {@link Serde} for record values of one generated Avro type in the Confluent wire format, on top of
 * {@link ConfluentAvroCodec}. Deserialization failures throw {@link AvroReadException} (a Kafka
 * {@code SerializationException}), so Kafka's deserialization exception handlers see them.
 *
 * <pre>{@code
 * Serde<ContextSnapshot> serde = new ConfluentAvroSerde<>(SchemaRegistries.forUrl(url), ContextSnapshot.class);
 * }</pre>
 */
public final class ConfluentAvroSerde<T extends SpecificRecord> implements Serde<T> {
    private final ConfluentAvroCodec<T> codec;

    public ConfluentAvroSerde(SchemaRegistryClient registry, Class<T> type) {
        this.codec = new ConfluentAvroCodec<>(registry, type);
    }

    public ConfluentAvroCodec<T> codec() {
        return codec;
    }

    @Override
    public Serializer<T> serializer() {
        return codec::serialize;
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, data) -> data == null ? null : codec.deserialize(data);
    }
}
