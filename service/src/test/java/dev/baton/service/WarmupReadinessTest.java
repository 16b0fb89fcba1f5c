package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;

import dev.baton.config.BatonConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** {@code /readyz} says "warming up" (503) until the warm-up is over, even with Kafka Streams RUNNING. */
class WarmupReadinessTest {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void shouldAnswerWarmingUpUntilTheWarmupIsDone() throws Exception {
        AtomicReference<String> holdBack = new AtomicReference<>(ServiceRunner.WARMING_UP);
        try (HttpEndpoints http = new HttpEndpoints(new HttpEndpoints.Settings("127.0.0.1", 0, 2048, 4),
                () -> KafkaStreams.State.RUNNING, holdBack::get, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                () -> null, null)) {
            http.start();
            HttpResponse<String> warming = get(http, "/readyz");
            assertThat(warming.statusCode()).isEqualTo(503);
            assertThat(warming.body()).contains("warming up");
            assertThat(get(http, "/healthz").statusCode()).as("alive while warming up").isEqualTo(200);

            ServiceRunner.warmUp(config("200"), holdBack, new CountDownLatch(1));

            HttpResponse<String> ready = get(http, "/readyz");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).doesNotContain("warming up");
        }
    }

    @Test
    void shouldStillFollowKafkaStreamsOnceWarm() throws Exception {
        AtomicReference<KafkaStreams.State> state = new AtomicReference<>(KafkaStreams.State.REBALANCING);
        try (HttpEndpoints http = new HttpEndpoints(new HttpEndpoints.Settings("127.0.0.1", 0, 2048, 4), state::get,
                () -> null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), () -> null, null)) {
            http.start();
            assertThat(get(http, "/readyz").statusCode()).isEqualTo(503);
            state.set(KafkaStreams.State.RUNNING);
            assertThat(get(http, "/readyz").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shouldEndTheWarmupAtOnceOnAStopRequest() {
        AtomicReference<String> holdBack = new AtomicReference<>(ServiceRunner.WARMING_UP);
        CountDownLatch stopRequested = new CountDownLatch(1);
        stopRequested.countDown();

        // ten minutes allowed: returning at all shows the stop request ended it
        ServiceRunner.warmUp(config("600000"), holdBack, stopRequested);

        assertThat(holdBack.get()).isNull();
    }

    private static BatonConfig config(String maxMillis) {
        return BatonConfig.builder().environment(Map.of("BATON_FORMAT", "json", "BATON_WARMUP_MAX_MS", maxMillis))
                .build();
    }

    private HttpResponse<String> get(HttpEndpoints http, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
