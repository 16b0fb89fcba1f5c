package dev.baton.service;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32;

import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The partition a producer of the session-events topic put a session key on ({@code baton.input.partitioner}), so
 * that a session query asks the instance whose store holds the session (Kafka Streams' {@code queryMetadataForKey}
 * with this partitioner). Kafka's Java client hashes the key with murmur2; librdkafka (Python's and Go's
 * confluent-kafka, node-rdkafka, kcat) by default with CRC-32 ({@code consistent_random}): the same key lands on
 * different partitions, and Kafka Streams' own lookup assumes murmur2.
 */
final class InputPartitioner {

    private InputPartitioner() {
    }

    /** The partitioner named by {@code baton.input.partitioner}: {@code murmur2} or {@code crc32}. */
    static StreamPartitioner<String, Object> named(String name) {
        return switch (name) {
            case "murmur2" -> (topic, key, value, partitions) -> Optional.of(Set.of(murmur2(key, partitions)));
            case "crc32" -> (topic, key, value, partitions) -> Optional.of(Set.of(crc32(key, partitions)));
            default -> throw new IllegalArgumentException("unknown partitioner " + name + " (murmur2 or crc32)");
        };
    }

    /** Kafka's Java producer (BuiltInPartitioner.partitionForKey): positive murmur2 of the key bytes, modulo. */
    static int murmur2(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    /** librdkafka's consistent partitioners: the unsigned CRC-32 of the key bytes, modulo. */
    static int crc32(String key, int partitions) {
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % partitions);
    }
}
