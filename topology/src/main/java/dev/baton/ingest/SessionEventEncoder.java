package dev.baton.ingest;

import dev.baton.avro.SessionEvent;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.JsonReadException;
import dev.baton.serde.SchemaRegistryClient;

import java.util.Locale;

/**
 * Produces input values of {@code baton.session-events} from JSON lines (docs/contract.md, "JSONL files"): for JSON the
 * line's bytes as they are, for Avro the line converted to a {@link SessionEvent} in the Confluent wire format. For
 * {@code baton demo}, {@code baton backfill} and tests.
 *
 * <pre>{@code
 * SessionEventEncoder encoder = SessionEventEncoder.forFormat(format, registry);
 * try { producer.send(new ProducerRecord<>(topic, key, encoder.encode(topic, lineBytes))); }
 * catch (JsonReadException e) { ... }   // Avro only: the line cannot become a SessionEvent (dead-letter it yourself:
 *                                       // SessionEventDecoder.json(..).decode(key, lineBytes) gives the code)
 * }</pre>
 * Only Avro conversion can fail: a JSON line is passed on unchecked, the decoder judges it. Thread-safe.
 */
public interface SessionEventEncoder {

    /**
     * The value bytes for {@code jsonLine}.
     *
     * @throws JsonReadException (Avro only) when the line cannot be read as a SessionEvent
     */
    byte[] encode(String topic, byte[] jsonLine);

    static SessionEventEncoder json() {
        return (topic, jsonLine) -> jsonLine;
    }

    static SessionEventEncoder avro(SchemaRegistryClient registry) {
        ConfluentAvroCodec<SessionEvent> codec = new ConfluentAvroCodec<>(registry, SessionEvent.class);
        return (topic, jsonLine) -> codec.serialize(topic, AvroJson.read(jsonLine, SessionEvent.class));
    }

    /** {@code avro} or {@code json}; {@code registry} may be null for JSON. */
    static SessionEventEncoder forFormat(String format, SchemaRegistryClient registry) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "avro" -> avro(registry);
            case "json" -> json();
            default -> throw new IllegalArgumentException("unknown format '" + format + "': expected avro or json");
        };
    }
}
