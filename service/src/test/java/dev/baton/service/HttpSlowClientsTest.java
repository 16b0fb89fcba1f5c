package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * Clients that hold connections open without finishing their request (slow headers, a slow declared body, or a crowd
 * connecting and dropping) must not stop {@code /healthz}, {@code /readyz} and {@code /metrics}: every probe made
 * meanwhile is answered 200 within the liveness probe's timeout (2 s in deploy/), used as the probe's own deadline —
 * a functional check (does the kubelet get an answer before it gives up), not a latency benchmark.
 */
class HttpSlowClientsTest {
    /** The kubelet's timeoutSeconds for Baton's probes (deploy/base). */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    /** Longer than the server's request time limit, so the server, not the client, ends a slow request. */
    private static final Duration SLOW_CLIENT_PATIENCE = Duration.ofSeconds(HttpEndpoints.MAX_REQUEST_SECONDS + 10);

    @TempDir
    Path dir;
    private HttpEndpoints http;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();
    private final ExecutorService slowClients = Executors.newCachedThreadPool();
    private final AtomicBoolean stop = new AtomicBoolean();
    /** Slow clients that have connected and sent their first bytes (each counted once). */
    private final AtomicInteger clientsUnderWay = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "acme-token-0123456789abcdef0123456789 acme\n");
        HttpEndpoints.QueryHandler handler = (tenant, session, params, forwarded, authorization) ->
                new SessionQuery.Answer(200, "text/plain", "ok".getBytes(StandardCharsets.UTF_8));
        http = new HttpEndpoints(new HttpEndpoints.Settings("127.0.0.1", 0, 2048, 4), () -> KafkaStreams.State.RUNNING,
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), () -> handler, new TenantTokens(tokens));
        http.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        stop.set(true);
        slowClients.shutdownNow();
        slowClients.awaitTermination(10, TimeUnit.SECONDS);
        http.close();
    }

    @Test
    void shouldAnswerProbesWhileClientsSendTheirHeadersSlowly() throws Exception {
        List<CompletableFuture<Boolean>> slow = new ArrayList<>();
        for (int i = 0; i < 8; i++) { // the two, and more than the old pool's two threads many times over
            slow.add(dribble("GET /healthz HTTP/1.1\r\nHost: baton\r\nX-Slow: " + "x".repeat(200) + "\r\n\r\n"));
        }
        probeUntilDone(slow);
        assertThat(slow).as("the server closed every slow request before its client was done")
                .allSatisfy(f -> assertThat(f.get()).isTrue());
    }

    @Test
    void shouldAnswerProbesWhileClientsSendADeclaredBodySlowly() throws Exception {
        List<CompletableFuture<Boolean>> slow = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            // complete headers (the request is dispatched and answered), then a body that never quite arrives: the
            // server drains a request's unread body before it takes the connection's next request
            slow.add(dribble("POST /healthz HTTP/1.1\r\nHost: baton\r\nContent-Length: 100000\r\n\r\n", 0));
        }
        probeUntilDone(slow);
        assertThat(slow).allSatisfy(f -> assertThat(f.get()).isTrue());
    }

    @Test
    void shouldAnswerProbesWhileManyClientsConnectAndDropRepeatedly() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        List<CompletableFuture<Boolean>> crowd = new ArrayList<>();
        long until = System.nanoTime() + Duration.ofSeconds(HttpEndpoints.MAX_REQUEST_SECONDS + 3).toNanos();
        for (int c = 0; c < 32; c++) {
            int kind = c % 3;
            crowd.add(CompletableFuture.supplyAsync(() -> {
                boolean counted = false;
                while (!stop.get() && System.nanoTime() < until) {
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress("127.0.0.1", http.port()), 2_000);
                        connections.incrementAndGet();
                        OutputStream out = s.getOutputStream();
                        switch (kind) {
                            case 0 -> { } // connect and drop
                            case 1 -> out.write("GET /heal".getBytes(StandardCharsets.US_ASCII)); // half a request line
                            default -> { // a whole request, dropped before the answer is read (not /metrics: a
                                // flood of scrapes is refused 503 by design, see HttpEndpoints)
                                out.write("GET /readyz HTTP/1.1\r\nHost: baton\r\n\r\n"
                                        .getBytes(StandardCharsets.US_ASCII));
                            }
                        }
                        out.flush();
                        if (!counted) {
                            counted = true;
                            clientsUnderWay.incrementAndGet();
                        }
                    } catch (IOException e) {
                        // refused or reset while the server is busy: the crowd reconnects
                    }
                }
                return true;
            }, slowClients));
        }
        probeUntilDone(crowd);
        System.out.printf("%d connections opened and dropped by 32 clients%n", connections.get());
        assertThat(connections.get()).isGreaterThan(32);
    }

    /**
     * Probes /healthz, /readyz and /metrics in turn until every slow client is done, each with the probe timeout as
     * its deadline: every probe must be answered 200 in time.
     */
    private void probeUntilDone(List<CompletableFuture<Boolean>> clients) throws Exception {
        // the slow clients are connected and holding threads before the first probe (or one is already done)
        Awaitility.await("every slow client connected").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                .until(() -> clientsUnderWay.get() >= clients.size() || clients.stream().anyMatch(CompletableFuture::isDone));
        int probes = 0;
        List<String> paths = List.of("/healthz", "/readyz", "/metrics");
        while (clients.stream().anyMatch(f -> !f.isDone())) {
            String path = paths.get(probes++ % paths.size());
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path))
                    .timeout(PROBE_TIMEOUT).GET().build();
            HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as("probe %d (%s)", probes, path).isEqualTo(200);
            Thread.sleep(100);
        }
        assertThat(probes).isGreaterThan(10);
    }

    /** A client that sends {@code request} one byte every 300 ms after its first one. */
    private CompletableFuture<Boolean> dribble(String request) {
        return dribble(request, 1);
    }

    /**
     * A client that sends the first {@code sentAtOnce} characters (0: up to the end of the headers) of
     * {@code request} at once, then one byte every 300 ms for longer than the server's request time limit. True when
     * the server closed the connection before the client gave up.
     */
    private CompletableFuture<Boolean> dribble(String request, int sentAtOnce) {
        return CompletableFuture.supplyAsync(() -> {
            byte[] bytes = request.getBytes(StandardCharsets.US_ASCII);
            int first = sentAtOnce > 0 ? sentAtOnce : bytes.length;
            long giveUp = System.nanoTime() + SLOW_CLIENT_PATIENCE.toNanos();
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", http.port()), 2_000);
                s.setSoTimeout(300);
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();
                out.write(bytes, 0, first);
                out.flush();
                clientsUnderWay.incrementAndGet();
                int sent = first;
                while (!stop.get() && System.nanoTime() < giveUp) {
                    if (closedByServer(in)) {
                        return true;
                    }
                    // past the request (the body case): keep sending filler for the declared body
                    out.write(sent < bytes.length ? bytes[sent++] : 'x');
                    out.flush();
                }
                return false;
            } catch (IOException e) {
                return true; // reset by the server
            }
        }, slowClients);
    }

    /** Reads what the server sent (an answer to the body case's headers) for up to 300 ms; true at end of stream. */
    private static boolean closedByServer(InputStream in) throws IOException {
        byte[] buffer = new byte[4096];
        try {
            while (true) {
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException stillOpen) {
            return false;
        }
    }
}
