package dev.baton.ingest;

import dev.baton.serde.SchemaRegistryClient;
import dev.baton.serde.SchemaRegistryUnavailableException;

import java.util.Locale;

/**
 * Turns one input record (key and value bytes of {@code baton.session-events}) into an
 * {@link dev.baton.processor.InboundEvent} or a dead-letter verdict. Two implementations: {@link #avro} (Confluent
 * wire format) and {@link #json} (one JSON object per record).
 *
 * <pre>{@code
 * SessionEventDecoder decoder = SessionEventDecoder.avro(SchemaRegistries.forUrl(url), maxRecordBytes);
 * Decoded d = decoder.decode(record.key(), record.value());
 * if (d.accepted()) process(d.event()); else deadLetter(record, d.code(), d.message());
 * }</pre>
 *
 * <p>Order of checks (the first failing one decides the code):
 * <ol>
 *   <li>{@code OVERSIZED}: key plus value longer than {@code maxRecordBytes}, before anything is parsed;</li>
 *   <li>reading: {@code MALFORMED} (null value, not UTF-8/JSON/one object, bad magic byte, truncated or corrupt Avro,
 *       trailing bytes), {@code UNKNOWN_SCHEMA} (Avro: schema id unknown to the registry, or a writer schema that is
 *       not a SessionEvent), {@code INVALID_FIELD} (a required field missing or null, a value of the wrong type or out
 *       of range, an unknown enum symbol);</li>
 *   <li>content, see {@link SessionEventValidator}: INVALID_ID of the envelope ids, KEY_MISMATCH, BAD_PAYLOAD, then
 *       the payload's fields.</li>
 * </ol>
 *
 * <p>{@code decode} never throws for bad input. The one exception is a schema registry that cannot be reached
 * ({@link SchemaRegistryUnavailableException}): that says nothing about the record, so it propagates for the caller
 * to fail and retry instead of dead-lettering a good record. Implementations are thread-safe.
 */
public interface SessionEventDecoder {

    /** Kafka's own default record size limit, and the contract's default hard limit. */
    int DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;

    /**
     * Decodes one record.
     *
     * @throws SchemaRegistryUnavailableException only when the registry cannot be reached (never for bad input)
     */
    Decoded decode(byte[] key, byte[] value);

    /** Confluent-wire-format Avro values, writer schemas fetched from {@code registry}. */
    static SessionEventDecoder avro(SchemaRegistryClient registry, int maxRecordBytes) {
        return new AvroSessionEventDecoder(registry, maxRecordBytes);
    }

    /** JSON values (docs/contract.md, "JSONL files"). */
    static SessionEventDecoder json(int maxRecordBytes) {
        return new JsonSessionEventDecoder(maxRecordBytes);
    }

    /** {@code avro} or {@code json} (case-insensitive); {@code registry} is only used for Avro and may be null for JSON. */
    static SessionEventDecoder forFormat(String format, SchemaRegistryClient registry, int maxRecordBytes) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "avro" -> avro(registry, maxRecordBytes);
            case "json" -> json(maxRecordBytes);
            default -> throw new IllegalArgumentException("unknown format '" + format + "': expected avro or json");
        };
    }

    /** The OVERSIZED check shared by both implementations: null when within the limit. */
    static Decoded checkSize(byte[] key, byte[] value, int maxRecordBytes) {
        long size = (key == null ? 0L : key.length) + (value == null ? 0L : value.length);
        if (size > maxRecordBytes) {
            return Decoded.reject(dev.baton.deadletter.ErrorCode.OVERSIZED, "record has " + size
                    + " bytes (key " + (key == null ? 0 : key.length) + ", value " + (value == null ? 0 : value.length)
                    + "); the limit is " + maxRecordBytes);
        }
        return null;
    }
}
