package dev.baton.deadletter;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

import java.nio.charset.StandardCharsets;

/**
 * The size of a record as the producer and the broker count it, bounded from above: key, value and headers plus
 * Kafka's record framing (varint lengths, attributes, deltas) and the header of a batch holding only this record.
 * Baton compares it with {@code baton.max-output-bytes}, which the producer's {@code max.request.size} and the topics'
 * {@code max.message.bytes} equal, before it writes anything: a record the broker would refuse never reaches the
 * producer (it would put the exactly-once transaction in error).
 */
public final class RecordLimit {
    /** Record batch header (61 bytes in format v2) and the record's own framing (at most 5 varints). */
    static final int FRAMING_BYTES = 61 + 5 * 5 + 1;
    /** Per header: two varint lengths. */
    static final int PER_HEADER_BYTES = 10;

    private RecordLimit() {
    }

    public static long sizeOf(byte[] key, byte[] value, Headers headers) {
        long n = FRAMING_BYTES + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        if (headers != null) {
            for (Header h : headers) {
                n += PER_HEADER_BYTES + h.key().getBytes(StandardCharsets.UTF_8).length
                        + (h.value() == null ? 0 : h.value().length);
            }
        }
        return n;
    }
}
