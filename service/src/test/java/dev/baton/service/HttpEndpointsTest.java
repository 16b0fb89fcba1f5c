package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.streams.KafkaStreams;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The HTTP endpoints on a real socket: session queries need a bearer token for the tenant, odd paths are refused
 * before any query runs, the probes and metrics need no token and tell nothing about tenants, and a bounded flood of
 * slow queries neither stops the service nor keeps {@code /healthz} from answering. How fast the probes answer is a
 * benchmark figure, not asserted here: benchmarks' {@code ProbeLatency} prints it.
 */
class HttpEndpointsTest {
    private static final String ACME_TOKEN = "acme-token-0123456789abcdef0123456789";
    private static final String OTHER_TOKEN = "other-token-0123456789abcdef012345678";
    private static final String SECRET_TRANSCRIPT = "the secret transcript of acme";

    @TempDir
    Path dir;
    private HttpEndpoints http;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicInteger queriesRun = new AtomicInteger();
    private final Map<String, String> seenAuthorization = new ConcurrentHashMap<>();
    private volatile long queryMillis;
    /** While not null, every query and scrape waits for it (a render that takes as long as the test wants). */
    private volatile java.util.concurrent.CountDownLatch hold;
    private final AtomicInteger scrapesHeld = new AtomicInteger();
    private String base;

    @BeforeEach
    void start() throws IOException {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "# tenant tokens\n" + ACME_TOKEN + " acme\n" + OTHER_TOKEN + " other,third\n");
        HttpEndpoints.QueryHandler handler = (tenant, session, params, forwarded, authorization) -> {
            queriesRun.incrementAndGet();
            seenAuthorization.put(tenant + "/" + session, authorization);
            awaitHold();
            if (queryMillis > 0) {
                try {
                    Thread.sleep(queryMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new SessionQuery.Answer(200, "text/plain", (SECRET_TRANSCRIPT + " " + session).getBytes());
        };
        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        io.micrometer.core.instrument.Gauge.builder("test.slow.gauge", () -> {
            if (hold != null) {
                scrapesHeld.incrementAndGet();
                awaitHold();
            }
            return 1;
        }).register(metrics);
        http = new HttpEndpoints(new HttpEndpoints.Settings("127.0.0.1", 0, 2048, 4), () -> KafkaStreams.State.RUNNING,
                metrics, () -> handler, new TenantTokens(tokens));
        http.start();
        base = "http://127.0.0.1:" + http.port();
    }

    @AfterEach
    void stop() {
        http.close();
    }

    @Test
    void shouldAnswer401WithoutAValidToken() throws Exception {
        assertThat(get("/sessions/acme/s1", null).statusCode()).isEqualTo(401);
        assertThat(get("/sessions/acme/s1", "Bearer not-a-token-at-all-but-long-enough-x").statusCode()).isEqualTo(401);
        assertThat(get("/sessions/acme/s1", "Basic " + ACME_TOKEN).statusCode()).isEqualTo(401);
        HttpResponse<String> r = get("/sessions/acme/s1", null);
        assertThat(r.body()).doesNotContain(SECRET_TRANSCRIPT);
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        assertThat(queriesRun).hasValue(0);
    }

    @Test
    void shouldAnswer403AndNoDataForAnotherTenantsToken() throws Exception {
        HttpResponse<String> r = get("/sessions/acme/s1", "Bearer " + OTHER_TOKEN);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).doesNotContain(SECRET_TRANSCRIPT);
        assertThat(queriesRun).hasValue(0);
        HttpResponse<String> ok = get("/sessions/acme/s1", "Bearer " + ACME_TOKEN);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).contains(SECRET_TRANSCRIPT);
        // the token is what a forwarded request carries on to the owner, which checks it again
        assertThat(seenAuthorization).containsEntry("acme/s1", "Bearer " + ACME_TOKEN);
        assertThat(get("/sessions/third/s1", "Bearer " + OTHER_TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldAnswer400ForTraversalAndOddCharactersBeforeAnyQuery() throws Exception {
        for (String path : List.of("/sessions/acme/../other/s1", "/sessions/acme/s1/extra", "/sessions/acme",
                "/sessions/acme/%2e%2e%2fother", "/sessions/acme/s%00", "/sessions/ac%20me/s1", "/sessions/acme/%E2%82%AC",
                "/sessions//s1", "/sessions/acme/..", "/sessions/acme/%2E%2E", "/sessions/../s1", "/sessions/acme/.",
                "/sessions/acme/%2e")) {
            assertThat(get(path, "Bearer " + ACME_TOKEN).statusCode()).as(path).isEqualTo(400);
        }
        assertThat(get("/sessions/acme/" + "x".repeat(3_000), "Bearer " + ACME_TOKEN).statusCode()).isEqualTo(414);
        assertThat(queriesRun).hasValue(0);
    }

    @Test
    void shouldAnswer400ForOutOfRangeOrUnknownQueryParametersBeforeAnyQuery() throws Exception {
        for (String query : List.of("message_budget_chars=-1", "message_budget_chars=0", "message_budget_chars=%2B5",
                "message_budget_chars=2147483648", "message_budget_chars=99999999999", "message_budget_chars=1e3",
                "message_budget_chars=", "target=REMOTE", "to_agent=a%20b", "to_agent=" + "a".repeat(65),
                "target=LOCAL&target=CLAUDE_CLI", "budget=5", "to_agent", "&", "to_agent=a&")) {
            HttpResponse<String> r = get("/sessions/acme/s1?" + query, "Bearer " + ACME_TOKEN);
            assertThat(r.statusCode()).as(query).isEqualTo(400);
            assertThat(r.body()).as(query).contains("\"error\"");
        }
        assertThat(queriesRun).hasValue(0);
        assertThat(get("/sessions/acme/s1?to_agent=billing-agent&target=claude_cli&message_budget_chars=2147483647",
                "Bearer " + ACME_TOKEN).statusCode()).isEqualTo(200);
        assertThat(get("/sessions/acme/s1.v2:x-y_z", "Bearer " + ACME_TOKEN).statusCode()).isEqualTo(200);
        assertThat(queriesRun).hasValue(2);
    }

    @Test
    void shouldServeProbesAndMetricsWithoutTokenOrTenantData() throws Exception {
        assertThat(get("/sessions/acme/s1", "Bearer " + ACME_TOKEN).statusCode()).isEqualTo(200);
        for (String path : List.of("/healthz", "/readyz", "/metrics")) {
            HttpResponse<String> r = get(path, null);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(r.body()).as(path).doesNotContain("acme").doesNotContain(SECRET_TRANSCRIPT)
                    .doesNotContain(ACME_TOKEN);
        }
    }

    @Test
    void shouldStayUpAndAnswerHealthDuringABoundedFloodOfSlowQueries() throws Exception {
        queryMillis = 200; // a preview render of a large session
        int flood = 2_000;
        int clients = 16; // bounded: 16 connections, each sending its share of the 2,000 queries back to back
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(clients);
        AtomicInteger next = new AtomicInteger();
        List<java.util.concurrent.Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            workers.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < flood; i = next.getAndIncrement()) {
                    HttpResponse<Void> r = client.send(request("/sessions/acme/s" + i, "Bearer " + ACME_TOKEN),
                            HttpResponse.BodyHandlers.discarding());
                    statuses.merge(r.statusCode(), 1, Integer::sum);
                }
                return null;
            }));
        }
        int probes = 0;
        while (workers.stream().anyMatch(f -> !f.isDone())) {
            assertThat(get("/healthz", null).statusCode()).isEqualTo(200);
            probes++;
            Thread.sleep(20);
        }
        for (java.util.concurrent.Future<?> f : workers) f.get();
        pool.shutdown();
        assertThat(statuses.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(flood);
        assertThat(statuses.keySet()).as("%s", statuses).containsOnly(200, 503);
        assertThat(statuses.get(503)).as("the excess is refused at once").isPositive();
        assertThat(get("/readyz", null).statusCode()).isEqualTo(200);
        assertThat(get("/sessions/acme/after", "Bearer " + ACME_TOKEN).statusCode()).isEqualTo(200);
        assertThat(probes).as("/healthz asked during the flood").isPositive();
    }

    /**
     * Health never queues behind rendering, shown without timing luck: every query worker and the scrape thread are
     * held (and their queues full) until the test releases them, so a probe or a refusal that queued behind them would
     * never answer (the client gives up after 30 s); yet {@code /healthz} and {@code /readyz} answer, and one more
     * query or scrape is refused with 503 and {@code Retry-After}. Held work completes once released. The time they
     * take is benchmarks' {@code ProbeLatency}'s figure.
     */
    @Test
    void shouldAnswerProbesAtOnceWhileEveryQueryAndScrapeWorkerIsHeld() throws Exception {
        hold = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int i = 0; i < 8; i++) { // 4 running + 4 waiting: the query pool is full
            held.add(client.sendAsync(request("/sessions/acme/held" + i, "Bearer " + ACME_TOKEN),
                    HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < 1 + HttpEndpoints.METRICS_WAITING; i++) { // 1 running + 2 waiting: so is the scrape pool
            held.add(client.sendAsync(request("/metrics", null), HttpResponse.BodyHandlers.ofString()));
        }
        Awaitility.await("every query and scrape worker held").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(10)).until(() -> http.queriesInFlight() >= 8
                        && http.scrapesInFlight() >= 1 + HttpEndpoints.METRICS_WAITING && queriesRun.get() >= 4
                        && scrapesHeld.get() >= 1);
        assertThat(queriesRun).as("queries running, held").hasValue(4);
        assertThat(http.queriesInFlight()).as("queries running or waiting").isEqualTo(8);
        assertThat(http.scrapesInFlight()).as("scrapes running or waiting").isEqualTo(1 + HttpEndpoints.METRICS_WAITING);

        for (int i = 0; i < 50; i++) {
            for (String probe : List.of("/healthz", "/readyz")) {
                assertThat(get(probe, null).statusCode()).as(probe).isEqualTo(200);
            }
        }
        HttpResponse<String> refused = get("/sessions/acme/one-more", "Bearer " + ACME_TOKEN);
        HttpResponse<String> refusedScrape = get("/metrics", null);
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.body()).doesNotContain(SECRET_TRANSCRIPT);
        assertThat(refusedScrape.statusCode()).isEqualTo(503);
        assertThat(queriesRun).as("the refused query never ran").hasValue(4);


        java.util.concurrent.CountDownLatch release = hold;
        hold = null;
        release.countDown();
        for (var f : held) {
            assertThat(f.get(30, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(queriesRun).hasValue(8);
    }

    private void awaitHold() {
        java.util.concurrent.CountDownLatch latch = hold;
        if (latch == null) return;
        try {
            latch.await(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private HttpRequest request(String path, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET();
        if (authorization != null) b.header("Authorization", authorization);
        return b.build();
    }

    private HttpResponse<String> get(String path, String authorization) throws Exception {
        return client.send(request(path, authorization), HttpResponse.BodyHandlers.ofString());
    }
}
