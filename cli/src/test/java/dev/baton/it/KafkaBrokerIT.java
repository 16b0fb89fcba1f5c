package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Smoke test of the in-process broker: exactly-once transactions work on a single node. */
class KafkaBrokerIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @Test
    void shouldDeliverCommittedTransactionalRecordsAndHideAbortedOnes() {
        kafka.createTopics(2, "smoke");

        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps("smoke-tx"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("smoke", bytes("k"), bytes("aborted")));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("smoke", bytes("k"), bytes("committed")));
            producer.commitTransaction();
        }

        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("smoke-reader"))) {
            consumer.subscribe(List.of("smoke"));
            Awaitility.await("the committed record").atMost(Duration.ofSeconds(30)).pollInSameThread()
                    .pollInterval(Duration.ZERO).until(() -> {
                        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                            values.add(new String(record.value(), StandardCharsets.UTF_8));
                        }
                        return !values.isEmpty();
                    });
            // a little longer: an aborted record must not show up late either
            consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
        }
        assertThat(values).containsExactly("committed");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
