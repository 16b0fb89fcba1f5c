package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.streams.KafkaStreams;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import dev.baton.config.BatonConfig;
import dev.baton.topology.RegistryProbe;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * {@code /readyz} tells the truth about the dependencies: a loopback HTTP server stands in for the schema registry
 * (only its reachability matters here, so the real registry is not needed), answering 503 while "paused" and not at
 * all once stopped; the readiness check runs every 100 ms and the test waits (Awaitility) for the answer to change.
 */
class ReadinessTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CHECK_EVERY = Duration.ofMillis(100);

    private final HttpClient client = HttpClient.newHttpClient();
    private final AtomicBoolean registryPaused = new AtomicBoolean();
    private final AtomicReference<KafkaStreams.State> state = new AtomicReference<>(KafkaStreams.State.RUNNING);
    private final AtomicReference<String> threadPaused = new AtomicReference<>();
    private HttpServer registry;
    private Readiness readiness;
    private HttpEndpoints http;

    @AfterEach
    void stop() {
        if (http != null) http.close();
        if (readiness != null) readiness.close();
        if (registry != null) registry.stop(0);
    }

    private HttpServer registryOn(int port) throws IOException {
        HttpEndpoints.applyJdkServerSettings(); // the process's first JDK server fixes its settings
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
        s.createContext("/apis/ccompat/v7/subjects", exchange -> {
            byte[] body = (registryPaused.get() ? "{\"error_code\":50001,\"message\":\"paused\"}" : "[]")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(registryPaused.get() ? 503 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        s.start();
        return s;
    }

    private void startBaton() throws IOException {
        String url = "http://127.0.0.1:" + registry.getAddress().getPort() + "/apis/ccompat/v7";
        BatonConfig config = BatonConfig.of(Map.of(BatonConfig.FORMAT, "avro", BatonConfig.SCHEMA_REGISTRY_URL, url,
                "application.id", "readiness-test"));
        Runnable probe = RegistryProbe.of(config, Duration.ofSeconds(2)).orElseThrow();
        readiness = new Readiness(state::get, threadPaused::get, List.of(new Readiness.Check("schema-registry", probe)),
                CHECK_EVERY);
        http = new HttpEndpoints(new HttpEndpoints.Settings("127.0.0.1", 0, 2048, 4), state::get, readiness,
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), () -> null, null);
        http.start();
    }

    private HttpResponse<String> readyz() throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/readyz")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode awaitStatus(int status) {
        AtomicReference<HttpResponse<String>> last = new AtomicReference<>();
        Awaitility.await("/readyz " + status).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    last.set(readyz());
                    return last.get().statusCode() == status;
                });
        assertThat(last.get().headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/json"));
        try {
            return JSON.readTree(last.get().body());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldAnswer503WithTheReasonWhileTheRegistryIsPausedAnd200OnceItIsBack() throws Exception {
        registry = registryOn(0);
        startBaton();
        JsonNode ready = awaitStatus(200);
        assertThat(ready.get("ready").asBoolean()).isTrue();
        assertThat(ready.get("dependencies").get("schema-registry").asText()).isEqualTo("ok");

        registryPaused.set(true);
        JsonNode paused = awaitStatus(503);
        assertThat(paused.get("ready").asBoolean()).isFalse();
        assertThat(paused.get("state").asText()).isEqualTo("RUNNING");
        assertThat(paused.get("dependencies").get("schema-registry").asText()).contains("HTTP 503");

        registryPaused.set(false);
        assertThat(awaitStatus(200).get("dependencies").get("schema-registry").asText()).isEqualTo("ok");
    }

    @Test
    void shouldAnswer503WithTheReasonWhileTheRegistryIsStoppedAnd200OnceItRunsAgain() throws Exception {
        registry = registryOn(0);
        int port = registry.getAddress().getPort();
        startBaton();
        awaitStatus(200);

        registry.stop(0);
        JsonNode down = awaitStatus(503);
        assertThat(down.get("dependencies").get("schema-registry").asText())
                .contains("127.0.0.1:" + port).contains("not reachable");

        registry = registryOn(port); // the same address again
        assertThat(awaitStatus(200).get("ready").asBoolean()).isTrue();
    }

    @Test
    void shouldAnswer503WithTheReasonWhileAStreamThreadIsPausedOrTheClientIsNotRunning() throws Exception {
        registry = registryOn(0);
        startBaton();
        awaitStatus(200);

        threadPaused.set("SchemaRegistryUnavailableException: schema registry at http://r is not reachable");
        assertThat(awaitStatus(503).get("paused").asText()).contains("not reachable");
        threadPaused.set(null);
        awaitStatus(200);

        state.set(KafkaStreams.State.REBALANCING);
        assertThat(awaitStatus(503).get("state").asText()).isEqualTo("REBALANCING");
    }
}
