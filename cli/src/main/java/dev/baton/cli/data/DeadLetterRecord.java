package dev.baton.cli.data;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.serde.StrictUtf8;

/**
 * One record of {@code baton.dead-letters} as {@code baton dead-letters} shows it: the contract's headers (code,
 * message, source topic/partition/offset), the original key and value, and where it sits on the dead-letter topic.
 * Bytes are shown as text when they are valid UTF-8, else as hex or base64.
 */
public record DeadLetterRecord(int partition, long offset, long timestamp, String code, String message,
        String sourceTopic, String sourcePartition, String sourceOffset, String originalSize, byte[] key, byte[] value) {

    /** How bytes that are not UTF-8 text are shown. */
    public enum Bytes { hex, base64 }

    /** Marks a record re-sent from the dead letters: {@code DEAD_LETTER_TOPIC/PARTITION/OFFSET}. */
    public static final String RESENT_FROM = "baton.resent-from";

    private static final ObjectMapper JSON = new ObjectMapper();

    public static DeadLetterRecord of(ConsumerRecord<byte[], byte[]> r) {
        return new DeadLetterRecord(r.partition(), r.offset(), r.timestamp(), header(r, DeadLetterHeaders.CODE),
                header(r, DeadLetterHeaders.MESSAGE), header(r, DeadLetterHeaders.SOURCE_TOPIC),
                header(r, DeadLetterHeaders.SOURCE_PARTITION), header(r, DeadLetterHeaders.SOURCE_OFFSET),
                header(r, DeadLetterHeaders.ORIGINAL_SIZE), r.key(), r.value());
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** {@code P/O} on the dead-letter topic. */
    public String position() {
        return partition + "/" + offset;
    }

    /** The tenant named by the original key ({@code tenant/session}), or null when the key names none. */
    public String tenant() {
        if (key == null || !StrictUtf8.isWellFormed(key, 0, key.length)) return null;
        String k = new String(key, StandardCharsets.UTF_8);
        int slash = k.indexOf('/');
        return slash > 0 ? k.substring(0, slash) : null;
    }

    /** True when the value was cut to an excerpt (an OVERSIZED record): the original is not here. */
    public boolean cut() {
        return originalSize != null;
    }

    /** The bytes as text when valid UTF-8, else in {@code encoding}; "(null)" for none. */
    public static String show(byte[] bytes, Bytes encoding) {
        if (bytes == null) return "(null)";
        if (isText(bytes)) return new String(bytes, StandardCharsets.UTF_8);
        return encoding.name() + ":" + encode(bytes, encoding);
    }

    static boolean isText(byte[] bytes) {
        return StrictUtf8.isWellFormed(bytes, 0, bytes.length);
    }

    static String encode(byte[] bytes, Bytes encoding) {
        return encoding == Bytes.hex ? HexFormat.of().formatHex(bytes) : Base64.getEncoder().encodeToString(bytes);
    }

    /**
     * One JSON object: position, timestamp, headers, and key and value each as {@code key}/{@code value} text when
     * valid UTF-8, else as {@code key_hex}/{@code value_hex} or {@code key_base64}/{@code value_base64}.
     */
    public String toJson(Bytes encoding) {
        ObjectNode o = JSON.createObjectNode();
        o.put("partition", partition);
        o.put("offset", offset);
        o.put("timestamp", timestamp);
        o.put("error_code", code);
        o.put("error_message", message);
        o.put("source_topic", sourceTopic);
        o.put("source_partition", sourcePartition);
        o.put("source_offset", sourceOffset);
        if (originalSize != null) o.put("original_size", originalSize);
        bytes(o, "key", key, encoding);
        bytes(o, "value", value, encoding);
        return o.toString();
    }

    private static void bytes(ObjectNode o, String name, byte[] b, Bytes encoding) {
        if (b == null) o.putNull(name);
        else if (isText(b)) o.put(name, new String(b, StandardCharsets.UTF_8));
        else o.put(name + "_" + encoding.name(), encode(b, encoding));
    }
}
