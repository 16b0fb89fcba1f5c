package dev.baton.topology;

import dev.baton.config.BatonConfig;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.processor.DeadLetterCounter;
import dev.baton.processor.DependencyUnavailableException;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The KIP-1034 safety nets: dead-letter what is the record's fault, fail (and retry) what is not. */
class ExceptionHandlerTest {
    private static final Map<String, String> CONFIG = Map.of("errors.dead.letter.queue.topic.name", "dlq");

    @Test
    void shouldDeadLetterTheInputOfAnUnexpectedProcessingFailureAndResume() {
        BatonProcessingExceptionHandler handler = new BatonProcessingExceptionHandler();
        handler.configure(CONFIG);
        var response = handler.handleError(context(), new Record<>("k", "v", 0L), new IllegalStateException("bug"));

        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).singleElement().satisfies(r -> {
            assertThat(r.topic()).isEqualTo("dlq");
            assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("raw-value");
            assertThat(header(r.headers(), DeadLetterHeaders.CODE)).isEqualTo("INTERNAL");
            assertThat(header(r.headers(), DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("42");
        });
    }

    @Test
    void shouldFailInsteadOfDeadLetteringWhenTheRegistryIsUnreachable() {
        BatonProcessingExceptionHandler handler = new BatonProcessingExceptionHandler();
        handler.configure(CONFIG);
        var cause = new SchemaRegistryUnavailableException("down", 503, null);
        assertThat(handler.handleError(context(), new Record<>("k", "v", 0L), cause).result())
                .isEqualTo(ProcessingExceptionHandler.Result.FAIL);
        assertThat(handler.handleError(context(), new Record<>("k", "v", 0L),
                new DependencyUnavailableException("down", cause)).result())
                .isEqualTo(ProcessingExceptionHandler.Result.FAIL);
    }

    @Test
    void shouldDeadLetterTheInputOfAnOutputTooLargeRetryTransientErrorsAndFailTheRest() {
        BatonProductionExceptionHandler handler = new BatonProductionExceptionHandler();
        handler.configure(CONFIG);
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>("baton.context-snapshots", new byte[1], new byte[1]);

        var tooLarge = handler.handleError(context(), out, new RecordTooLargeException("big"));
        assertThat(tooLarge.result()).isEqualTo(ProductionExceptionHandler.Result.RESUME);
        assertThat(tooLarge.deadLetterQueueRecords()).singleElement()
                .satisfies(r -> assertThat(header(r.headers(), DeadLetterHeaders.CODE)).isEqualTo("INTERNAL"));
        assertThat(handler.handleError(context(), out, new TimeoutException("slow")).result())
                .isEqualTo(ProductionExceptionHandler.Result.RETRY);
        assertThat(handler.handleError(context(), out, new TopicAuthorizationException("no")).result())
                .isEqualTo(ProductionExceptionHandler.Result.FAIL);
    }

    /** The handlers' dead letters bypass the topology's writer; they are counted in the counter it shares. */
    @Test
    void shouldCountTheProductionHandlersDeadLetterInTheSharedCounter() {
        var counter = new DeadLetterCounter();
        StreamsMetrics metrics = new MockProcessorContext<Object, Object>().metrics();
        counter.register(metrics, new TaskId(0, 3));
        BatonProductionExceptionHandler handler = new BatonProductionExceptionHandler();
        handler.configure(Map.of("errors.dead.letter.queue.topic.name", "dlq", DeadLetterCounter.CONFIG, counter));
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>("baton.context-snapshots", new byte[1],
                new byte[1]);
        handler.handleError(context(), out, new RecordTooLargeException("big"));
        // a dead letter that itself cannot be written is dropped, not dead-lettered again: nothing to count
        handler.handleError(context(), new ProducerRecord<>("dlq", new byte[1], new byte[1]),
                new RecordTooLargeException("big"));

        assertThat(metrics.metrics().entrySet()).filteredOn(e -> e.getKey().name().equals("dead-letters-total"))
                .singleElement().satisfies(e -> {
                    assertThat(e.getKey().tags()).containsEntry("code", "INTERNAL").containsEntry("task-id", "0_3");
                    assertThat(e.getValue().metricValue()).isEqualTo(1.0);
                });
    }

    @Test
    void shouldBeRegisteredByTheTopologyUnlessTheConfigurationNamesOthers() {
        var config = BatonConfig.of(Map.of(BatonConfig.FORMAT, "json"));
        assertThat(config.toStreamsProperties()).doesNotContainKeys(
                StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG);
        assertThat(BatonTopology.streamsProperties(config))
                .containsEntry(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                        BatonProcessingExceptionHandler.class.getName())
                .containsEntry(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG,
                        BatonProductionExceptionHandler.class.getName());

        var own = BatonConfig.of(Map.of(BatonConfig.FORMAT, "json",
                StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, "com.example.MyHandler"));
        assertThat(BatonTopology.streamsProperties(own))
                .containsEntry(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, "com.example.MyHandler");
    }

    /**
     * Kafka Streams 4.3's partition assignor reads a StreamsConfig made of the main consumer's settings; it warned at
     * start-up that the handler was off for the global thread because that copy lacked the setting. Both copies must
     * say the same, on by default and off when the configuration says so.
     */
    @Test
    void shouldGiveThePartitionAssignorsCopyOfTheConfigurationTheSameGlobalHandlerSetting() {
        for (String value : new String[] {null, "false"}) {
            Map<String, String> settings = new java.util.HashMap<>(Map.of(BatonConfig.FORMAT, "json"));
            if (value != null) settings.put(BatonTopology.GLOBAL_PROCESSING_HANDLER, value);
            StreamsConfig streams = new StreamsConfig(BatonTopology.streamsProperties(BatonConfig.of(settings)));
            // what the assignor builds: AssignorConfiguration's QuietStreamsConfig over the consumer's configs
            StreamsConfig assignors = new StreamsConfig(streams.getMainConsumerConfigs("group", "client", 0));

            boolean expected = value == null;
            assertThat(streams.getBoolean(BatonTopology.GLOBAL_PROCESSING_HANDLER)).as(value).isEqualTo(expected);
            assertThat(assignors.getBoolean(BatonTopology.GLOBAL_PROCESSING_HANDLER)).as(value).isEqualTo(expected);
        }
    }

    private static String header(Headers headers, String key) {
        return new String(headers.lastHeader(key).value(), StandardCharsets.UTF_8);
    }

    private static ErrorHandlerContext context() {
        return new ErrorHandlerContext() {
            public String topic() { return "baton.session-events"; }
            public int partition() { return 3; }
            public long offset() { return 42; }
            public Headers headers() { return new RecordHeaders(); }
            public String processorNodeId() { return "baton-snapshot-writer"; }
            public TaskId taskId() { return new TaskId(0, 3); }
            public long timestamp() { return 0; }
            public byte[] sourceRawKey() { return "t/s".getBytes(StandardCharsets.UTF_8); }
            public byte[] sourceRawValue() { return "raw-value".getBytes(StandardCharsets.UTF_8); }
        };
    }
}
