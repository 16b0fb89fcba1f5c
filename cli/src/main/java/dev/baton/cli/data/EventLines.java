package dev.baton.cli.data;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.replay.BackfillRunner;
import dev.baton.serde.JsonReadException;
import dev.baton.serde.MockSchemaRegistry;

/**
 * Judges SessionEvent JSON lines as Baton will judge the records made from them: each line is keyed as Baton expects
 * ({@code tenant_id/session_id}), encoded in the topic's format and given to the topology's own
 * {@link SessionEventDecoder} (size limit, reading, contract checks), so a line refused here is a record Baton would
 * dead-letter, with the same code and message. Avro is encoded against a private in-memory registry: the bytes have
 * the length of the real ones, and checking registers nothing anywhere.
 */
public final class EventLines {

    /** A line's verdict: its key, or the dead-letter code and message it would get. */
    public record Verdict(String key, String code, String message) {
        public boolean accepted() {
            return code == null;
        }
    }

    private final SessionEventEncoder encoder;
    private final SessionEventDecoder decoder;
    private final String scope;

    /** @param format avro or json; @param maxRecordBytes the record limit (baton.policy.max-record-bytes) */
    public EventLines(String format, int maxRecordBytes) {
        this.scope = "baton-produce-check-" + UUID.randomUUID();
        MockSchemaRegistry registry = "avro".equalsIgnoreCase(format) ? MockSchemaRegistry.forScope(scope) : null;
        this.encoder = SessionEventEncoder.forFormat(format, registry);
        this.decoder = SessionEventDecoder.forFormat(format, registry, maxRecordBytes);
    }

    public Verdict judge(String topic, byte[] line) {
        String key = BackfillRunner.sessionKeyOf(line);
        byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
        byte[] value;
        try {
            value = encoder.encode(topic, line);
        } catch (JsonReadException e) {
            // the line cannot become an Avro record: the JSON decoder says which code Baton gives such input
            Decoded d = SessionEventDecoder.json(Integer.MAX_VALUE).decode(keyBytes, line);
            return new Verdict(key, d.accepted() ? "MALFORMED" : d.code().name(), d.accepted() ? e.getMessage() : d.message());
        }
        Decoded d = decoder.decode(keyBytes, value);
        if (d.accepted()) return new Verdict(key, null, null);
        return new Verdict(key, d.code().name(), d.message());
    }

    /** Forgets the private registry. */
    public void close() {
        MockSchemaRegistry.dropScope(scope);
    }
}
