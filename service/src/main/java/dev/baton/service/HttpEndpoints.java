package dev.baton.service;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.streams.KafkaStreams;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The HTTP side of {@code baton run} (JDK's built-in server):
 * <ul>
 *   <li>{@code /healthz}: 200 while the process runs and Kafka Streams has not failed;</li>
 *   <li>{@code /readyz}: 200 when Kafka Streams is RUNNING, 503 otherwise (starting, rebalancing,
 *       failed);</li>
 *   <li>{@code /metrics}: Prometheus text (Kafka Streams, Baton's counters, JVM);</li>
 *   <li>{@code /sessions/{tenant}/{session}}: see {@link SessionQuery}; needs a bearer token for the tenant
 *       ({@link TenantTokens}).</li>
 * </ul>
 * Health, readiness and metrics are unauthenticated and carry no tenant data. They are answered by the server's own
 * small pool, which only ever does short work: a session query is handed to a separate, bounded pool
 * ({@code maxConcurrentQueries} running, as many waiting), and one that finds it full is answered 503 at once, so a
 * flood of queries never makes {@code /healthz} wait behind rendering. A request line longer than
 * {@code maxUrlChars} is answered 414.
 */
final class HttpEndpoints implements AutoCloseable {

    /** Answers one authorized session query. */
    @FunctionalInterface
    interface QueryHandler {
        SessionQuery.Answer query(String tenantId, String sessionId, Map<String, String> params, boolean forwarded,
                String authorization);
    }

    /** Where and how much: see docs/configuration.md ({@code baton.http.*}). */
    record Settings(String bindAddress, int port, int maxUrlChars, int maxConcurrentQueries) {
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final ThreadPoolExecutor queries;
    private final Settings settings;

    HttpEndpoints(Settings settings, Supplier<KafkaStreams.State> state, PrometheusMeterRegistry metrics,
            Supplier<QueryHandler> sessions, TenantTokens tokens) throws IOException {
        this.settings = settings;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(settings.bindAddress()), settings.port()),
                128);
        executor = Executors.newFixedThreadPool(2, daemon("baton-http"));
        queries = new ThreadPoolExecutor(settings.maxConcurrentQueries(), settings.maxConcurrentQueries(), 30,
                TimeUnit.SECONDS, new ArrayBlockingQueue<>(settings.maxConcurrentQueries()), daemon("baton-http-query"),
                new ThreadPoolExecutor.AbortPolicy());
        server.setExecutor(executor);
        server.createContext("/healthz", exchange -> {
            if (tooLong(exchange)) return;
            KafkaStreams.State s = state.get();
            boolean alive = s != KafkaStreams.State.ERROR && s != KafkaStreams.State.PENDING_ERROR;
            text(exchange, alive ? 200 : 503, (alive ? "ok" : "failed") + " (" + s + ")\n");
        });
        server.createContext("/readyz", exchange -> {
            if (tooLong(exchange)) return;
            KafkaStreams.State s = state.get();
            text(exchange, s == KafkaStreams.State.RUNNING ? 200 : 503, s + "\n");
        });
        server.createContext("/metrics", exchange -> {
            if (tooLong(exchange)) return;
            respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
                    metrics.scrape().getBytes(StandardCharsets.UTF_8));
        });
        server.createContext("/sessions/", exchange -> {
            if (tooLong(exchange)) return;
            try {
                queries.execute(() -> {
                    try {
                        session(exchange, sessions, tokens);
                    } catch (IOException | RuntimeException e) {
                        exchange.close();
                    }
                });
            } catch (RejectedExecutionException busy) {
                exchange.getResponseHeaders().set("Retry-After", "1");
                respond(exchange, SessionQuery.Answer.error(503, "too many session queries at once; retry shortly"));
            }
        });
        server.createContext("/", exchange -> text(exchange, 404,
                "Baton: /healthz /readyz /metrics /sessions/{tenant_id}/{session_id}\n"));
    }

    private void session(HttpExchange exchange, Supplier<QueryHandler> sessions, TenantTokens tokens)
            throws IOException {
        if (!exchange.getRequestMethod().equals("GET")) {
            respond(exchange, SessionQuery.Answer.error(405, "read-only: GET only"));
            return;
        }
        String raw = exchange.getRequestURI().getRawPath().substring("/sessions/".length());
        String[] parts = raw.split("/", -1);
        if (parts.length != 2) {
            respond(exchange, SessionQuery.Answer.error(400, "use /sessions/{tenant_id}/{session_id}"));
            return;
        }
        String tenant;
        String session;
        Map<String, String> params;
        try {
            tenant = decode(parts[0]);
            session = decode(parts[1]);
            params = params(exchange.getRequestURI().getRawQuery());
        } catch (IllegalArgumentException e) {
            respond(exchange, SessionQuery.Answer.error(400, "malformed percent-encoding"));
            return;
        }
        if (!dev.baton.engine.model.Identifiers.isValidId(tenant)
                || !dev.baton.engine.model.Identifiers.isValidId(session)) {
            respond(exchange, SessionQuery.Answer.error(400,
                    "tenant and session must be ids (1–128 characters of [A-Za-z0-9._:-])"));
            return;
        }
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        TenantTokens.Access access = tokens == null ? TenantTokens.Access.MISSING : tokens.check(authorization, tenant);
        switch (access) {
            case MISSING, INVALID -> {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"baton\"");
                respond(exchange, SessionQuery.Answer.error(401, tokens == null
                        ? "session queries are off: no baton.http.tokens-file is configured"
                        : "a bearer token for this tenant is needed (Authorization: Bearer TOKEN)"));
                return;
            }
            case FORBIDDEN -> {
                respond(exchange, SessionQuery.Answer.error(403, "this token is not for this tenant"));
                return;
            }
            case ALLOWED -> { }
        }
        boolean forwarded = exchange.getRequestHeaders().getFirst(SessionQuery.FORWARDED_HEADER) != null;
        QueryHandler query = sessions.get();
        SessionQuery.Answer answer;
        try {
            answer = query == null ? SessionQuery.Answer.error(503, "starting")
                    : query.query(tenant, session, params, forwarded, authorization);
        } catch (RuntimeException e) {
            answer = SessionQuery.Answer.error(500, "query failed: " + e.getClass().getSimpleName());
        }
        respond(exchange, answer);
    }

    void start() {
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** 414 for a request line longer than the limit (answered, true) — else false. */
    private boolean tooLong(HttpExchange exchange) throws IOException {
        if (exchange.getRequestURI().toString().length() <= settings.maxUrlChars()) return false;
        text(exchange, 414, "URI longer than " + settings.maxUrlChars() + " characters\n");
        return true;
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static Map<String, String> params(String rawQuery) {
        Map<String, String> out = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
            }
        }
        return out;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static void text(HttpExchange exchange, int status, String body) throws IOException {
        respond(exchange, status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
    }

    private static void respond(HttpExchange exchange, SessionQuery.Answer answer) throws IOException {
        respond(exchange, answer.status(), answer.contentType(), answer.body());
    }

    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(1);
        executor.shutdownNow();
        queries.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
            queries.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
