package dev.baton.service;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.streams.KafkaStreams;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * How fast the probes answer while the HTTP port is busy (the target: {@code /healthz} within 100 ms throughout; the
 * liveness probe's timeout is 1 s, docs/operations.md). Prints figures, asserts nothing: HttpEndpointsTest checks the
 * behaviour (probes answer while every worker is held, the excess is refused with 503), this program times it.
 * <ol>
 * <li>flood: 16 connections send 2,000 session queries back to back, each taking 200 ms to answer (a preview render of
 * a large session); {@code /healthz} is asked every 20 ms meanwhile: median, p99 and slowest answer.</li>
 * <li>held: every query and scrape worker is blocked (their queues full); 100 probes, then one more query, which is
 * refused: median and slowest probe, and the refusal's time.</li>
 * </ol>
 * It sits in {@code dev.baton.service} because {@link HttpEndpoints} is package-private. Flags: {@code --flood 2000
 * --clients 16 --query-millis 200}.
 */
public final class ProbeLatency {
    private static final String TOKEN = "bench-token-0123456789abcdef0123456789";

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicInteger queriesRun = new AtomicInteger();
    private final AtomicInteger scrapesHeld = new AtomicInteger();
    private volatile long queryMillis;
    /** While not null, every query and scrape waits for it. */
    private volatile CountDownLatch hold;
    private String base;

    private ProbeLatency() {
    }

    public static void main(String[] args) throws Exception {
        int flood = 2_000;
        int clients = 16;
        long queryMillis = 200;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--flood" -> flood = Integer.parseInt(args[i + 1]);
                case "--clients" -> clients = Integer.parseInt(args[i + 1]);
                case "--query-millis" -> queryMillis = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        Path dir = Files.createTempDirectory("probe-latency");
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, TOKEN + " acme\n", StandardCharsets.UTF_8);
        ProbeLatency bench = new ProbeLatency();
        try (HttpEndpoints http = bench.start(tokens)) {
            bench.flood(flood, clients, queryMillis);
            bench.held(http);
        } finally {
            Files.deleteIfExists(tokens);
            Files.deleteIfExists(dir);
        }
    }

    private HttpEndpoints start(Path tokens) throws IOException {
        HttpEndpoints.QueryHandler handler = (tenant, session, params, forwarded, authorization) -> {
            queriesRun.incrementAndGet();
            awaitHold();
            sleep(queryMillis);
            return new SessionQuery.Answer(200, "text/plain", session.getBytes(StandardCharsets.UTF_8));
        };
        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Gauge.builder("bench.slow.gauge", () -> {
            if (hold != null) {
                scrapesHeld.incrementAndGet();
                awaitHold();
            }
            return 1;
        }).register(metrics);
        HttpEndpoints http = new HttpEndpoints(new HttpEndpoints.Settings("127.0.0.1", 0, 2048, 4),
                () -> KafkaStreams.State.RUNNING, metrics, () -> handler, new TenantTokens(tokens));
        http.start();
        base = "http://127.0.0.1:" + http.port();
        return http;
    }

    private void flood(int flood, int clients, long millis) throws Exception {
        queryMillis = millis;
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        AtomicInteger next = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            workers.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < flood; i = next.getAndIncrement()) {
                    statuses.merge(get("/sessions/acme/s" + i, "Bearer " + TOKEN).statusCode(), 1, Integer::sum);
                }
                return null;
            }));
        }
        List<Long> health = new ArrayList<>();
        while (workers.stream().anyMatch(f -> !f.isDone())) {
            health.add(timed("/healthz"));
            sleep(20);
        }
        for (Future<?> f : workers) f.get();
        pool.shutdown();
        Collections.sort(health);
        System.out.printf("flood: /healthz during %d queries of %d ms from %d connections: %d probes, median %d ms, "
                + "p99 %d ms, max %d ms; query statuses %s%n", flood, millis, clients, health.size(),
                health.get(health.size() / 2), health.get(health.size() * 99 / 100), health.get(health.size() - 1),
                new TreeMap<>(statuses));
        queryMillis = 0;
    }

    private void held(HttpEndpoints http) throws Exception {
        hold = new CountDownLatch(1);
        int before = queriesRun.get();
        List<CompletableFuture<HttpResponse<Void>>> held = new ArrayList<>();
        for (int i = 0; i < 8; i++) { // 4 running + 4 waiting: the query pool is full
            held.add(client.sendAsync(request("/sessions/acme/held" + i, "Bearer " + TOKEN),
                    HttpResponse.BodyHandlers.discarding()));
        }
        for (int i = 0; i < 1 + HttpEndpoints.METRICS_WAITING; i++) { // 1 running + 2 waiting: so is the scrape pool
            held.add(client.sendAsync(request("/metrics", null), HttpResponse.BodyHandlers.discarding()));
        }
        while (http.queriesInFlight() < 8 || http.scrapesInFlight() < 1 + HttpEndpoints.METRICS_WAITING
                || queriesRun.get() < before + 4 || scrapesHeld.get() < 1) {
            sleep(10);
        }
        List<Long> probes = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            probes.add(timed("/healthz"));
            probes.add(timed("/readyz"));
        }
        long start = System.nanoTime();
        int refused = get("/sessions/acme/one-more", "Bearer " + TOKEN).statusCode();
        long refusedMillis = (System.nanoTime() - start) / 1_000_000;
        CountDownLatch release = hold;
        hold = null;
        release.countDown();
        for (CompletableFuture<HttpResponse<Void>> f : held) f.get(30, TimeUnit.SECONDS);
        Collections.sort(probes);
        System.out.printf("held: probes with every query and scrape worker held: %d answers, median %d ms, max %d ms; "
                + "the query beyond the limit answered %d in %d ms%n", probes.size(), probes.get(probes.size() / 2),
                probes.get(probes.size() - 1), refused, refusedMillis);
    }

    private long timed(String probe) throws Exception {
        long start = System.nanoTime();
        int status = get(probe, null).statusCode();
        if (status != 200) throw new IllegalStateException(probe + " answered " + status);
        return (System.nanoTime() - start) / 1_000_000;
    }

    private void awaitHold() {
        CountDownLatch latch = hold;
        if (latch == null) return;
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        if (millis <= 0) return;
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private HttpRequest request(String path, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET();
        if (authorization != null) b.header("Authorization", authorization);
        return b.build();
    }

    private HttpResponse<Void> get(String path, String authorization) throws IOException, InterruptedException {
        return client.send(request(path, authorization), HttpResponse.BodyHandlers.discarding());
    }
}
