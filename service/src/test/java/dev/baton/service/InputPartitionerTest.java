package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

/**
 * The partitioners {@code /sessions} routes by: murmur2 is exactly Kafka's Java producer; crc32 is librdkafka's
 * default (checked against confluent-kafka itself in LibrdkafkaPartitionerIT), and the two disagree for many keys.
 */
class InputPartitionerTest {

    @Test
    void shouldPartitionLikeKafkasJavaProducerWithMurmur2AndDisagreeWithCrc32() {
        int differ = 0;
        for (int i = 0; i < 1_000; i++) {
            String key = "tenant-" + (i % 7) + "/session-" + i;
            for (int partitions : new int[] {1, 4, 24}) {
                assertThat(InputPartitioner.named("murmur2").partitions("t", key, null, partitions))
                        .isEqualTo(Optional.of(Set.of(BuiltInPartitioner.partitionForKey(
                                key.getBytes(StandardCharsets.UTF_8), partitions))));
                int crc = InputPartitioner.crc32(key, partitions);
                assertThat(crc).isBetween(0, partitions - 1);
                assertThat(InputPartitioner.named("crc32").partitions("t", key, null, partitions))
                        .isEqualTo(Optional.of(Set.of(crc)));
                differ += crc != InputPartitioner.murmur2(key, partitions) ? 1 : 0;
            }
        }
        assertThat(differ).isGreaterThan(1_000);
        // the standard CRC-32 (zlib's, librdkafka's rd_crc32) of the key's UTF-8 bytes: "123456789" -> 0xCBF43926
        assertThat(InputPartitioner.crc32("123456789", Integer.MAX_VALUE)).isEqualTo((int) (0xCBF43926L % Integer.MAX_VALUE));
        assertThatThrownBy(() -> InputPartitioner.named("random")).isInstanceOf(IllegalArgumentException.class);
    }
}
