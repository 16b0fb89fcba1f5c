package dev.baton.service;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.streams.KafkaStreams;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import dev.baton.service.viewer.ViewerPage;

/**
 * The HTTP side of {@code baton run} (JDK's built-in server):
 * <ul>
 *   <li>{@code /healthz}: 200 while the process runs and Kafka Streams has not failed;</li>
 *   <li>{@code /readyz}: 200 when Kafka Streams is RUNNING, no stream thread is paused, the warm-up is over and the
 *       dependencies (schema registry, brokers) answered at their last check; 503 otherwise (warming up, starting,
 *       rebalancing, failed, a dependency unreachable), with a JSON body that says why ({@link Readiness});</li>
 *   <li>{@code /metrics}: Prometheus text (Kafka Streams, Baton's counters, JVM);</li>
 *   <li>{@code /sessions/{tenant}/{session}}: see {@link SessionQuery}; needs a bearer token for the tenant
 *       ({@link TenantTokens}).</li>
 *   <li>{@code /console}: the snapshot viewer ({@link ViewerPage}), a page without data under a strict
 *       Content-Security-Policy; its script asks {@code /console/api/tenants/{tenant}/sessions} (the tenant's sessions
 *       in this instance's stores) and {@code /sessions/...}, both with the token the user gives, as a header.</li>
 * </ul>
 * Health, readiness and metrics are unauthenticated and carry no tenant data. Health and readiness are answered by the
 * server's own pool (up to {@value #SERVER_THREADS} threads, grown on demand), which only ever does constant-time work:
 * reading a request, answering a probe, an error or a 414, and handing the rest on. Reading a request is bounded in
 * time ({@value #MAX_REQUEST_SECONDS} s, then the connection is closed), so clients that send their headers or body
 * slowly hold a reading thread each for a bounded time and never the ones that answer probes. A session query goes to a separate, bounded
 * pool ({@code maxConcurrentQueries} running, as many waiting) and a {@code /metrics} scrape to its own thread (one
 * running, {@value #METRICS_WAITING} waiting); a request that finds its pool full is answered 503 with
 * {@code Retry-After} at once. So neither a flood of queries nor a slow scrape ever makes {@code /healthz} or
 * {@code /readyz} wait behind rendering (HttpEndpointsTest blocks every query and scrape worker to show it). A request
 * line longer than {@code maxUrlChars} is answered 414.
 */
final class HttpEndpoints implements AutoCloseable {

    /** Answers one authorized session query. */
    @FunctionalInterface
    interface QueryHandler {
        SessionQuery.Answer query(String tenantId, String sessionId, Map<String, String> params, boolean forwarded,
                String authorization);

        /** The tenant's sessions in this instance's stores ({@code /console}'s list); none where nothing is stored. */
        default SessionQuery.Answer sessions(String tenantId) {
            return SessionQuery.Answer.error(503, "this instance lists no sessions");
        }
    }

    /** Where and how much: see docs/configuration.md ({@code baton.http.*}). */
    record Settings(String bindAddress, int port, int maxUrlChars, int maxConcurrentQueries) {
    }

    /** Seconds a request (line, headers and body) may take to arrive before its connection is closed. */
    static final long MAX_REQUEST_SECONDS = 5;
    /** Seconds a response may take to be written (a client that does not read) before its connection is closed. */
    static final long MAX_RESPONSE_SECONDS = 10;
    /**
     * Threads that read requests and answer probes (never rendering, never a scrape); grown on demand, so a few slow
     * clients each hold one of them (for at most MAX_REQUEST_SECONDS) while the others answer probes. A request that
     * finds all of them busy has its connection closed at once by the JDK server (never queued behind slow ones).
     */
    static final int SERVER_THREADS = 64;
    static {
        // The JDK server writes a response's headers and body in two writes; without TCP_NODELAY, Nagle's algorithm and
        // the client's delayed ACK hold the body back ~40 ms, which would be most of a probe's answer time.
        setIfUnset("sun.net.httpserver.nodelay", "true");
        // The JDK server reads a request's line, headers and body with blocking reads on its executor's threads, with
        // no time limit of its own: a client that sends its headers (or a declared body) a byte at a time holds a
        // thread for as long as it likes. These two limits make the server's own timer close a connection whose
        // request has not fully arrived within MAX_REQUEST_SECONDS, or whose response has not been taken within
        // MAX_RESPONSE_SECONDS, which frees the thread (docs/operations.md, "How the HTTP port holds up").
        setIfUnset("sun.net.httpserver.maxReqTime", Long.toString(MAX_REQUEST_SECONDS));
        setIfUnset("sun.net.httpserver.maxRspTime", Long.toString(MAX_RESPONSE_SECONDS));
    }

    /**
     * Makes sure the JDK server settings above are in place. The JDK reads them when the process's first server is
     * created, whoever creates it: code that creates a JDK server before Baton's (a test's loopback server) calls this
     * first, or Baton's server would run without its time limits in that process.
     */
    static void applyJdkServerSettings() {
        // nothing to do: calling it initializes the class, which runs the static block above
    }

    /**
     * Sets a JDK server property unless the operator set it (JAVA_TOOL_OPTIONS wins). The JDK reads them once, when
     * the first server of the process is created, which is why they are set here, before that.
     */
    private static void setIfUnset(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    /** Scrapes that may wait while one runs; past that, 503. */
    static final int METRICS_WAITING = 2;

    private final HttpServer server;
    private final ThreadPoolExecutor executor;
    private final ThreadPoolExecutor queries;
    private final ThreadPoolExecutor scrapes;
    private final Settings settings;

    HttpEndpoints(Settings settings, Supplier<KafkaStreams.State> state, PrometheusMeterRegistry metrics,
            Supplier<QueryHandler> sessions, TenantTokens tokens) throws IOException {
        this(settings, state, Readiness.ofState(state), metrics, sessions, tokens);
    }

    /**
     * @param holdBack why the instance is not ready whatever Kafka Streams' state (e.g. {@code warming up}), or null:
     *                 {@code /readyz} answers 503 with it as the reason while it is not null (no dependency checks)
     */
    HttpEndpoints(Settings settings, Supplier<KafkaStreams.State> state, Supplier<String> holdBack,
            PrometheusMeterRegistry metrics, Supplier<QueryHandler> sessions, TenantTokens tokens) throws IOException {
        this(settings, state, new Readiness(state, holdBack, java.util.List.of(), java.time.Duration.ofSeconds(5)),
                metrics, sessions, tokens);
    }

    /** @param readiness what {@code /readyz} answers (the client's state, a paused thread, the dependencies) */
    HttpEndpoints(Settings settings, Supplier<KafkaStreams.State> state, Readiness readiness,
            PrometheusMeterRegistry metrics, Supplier<QueryHandler> sessions, TenantTokens tokens) throws IOException {
        this.settings = settings;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(settings.bindAddress()), settings.port()),
                128);
        // two threads kept, up to SERVER_THREADS while connections need them; no queue: a connection never waits for a
        // thread that a slow client holds (rejected, the JDK server closes it and the client may retry at once)
        executor = new ThreadPoolExecutor(2, SERVER_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemon("baton-http"), new ThreadPoolExecutor.AbortPolicy());
        queries = new ThreadPoolExecutor(settings.maxConcurrentQueries(), settings.maxConcurrentQueries(), 30,
                TimeUnit.SECONDS, new ArrayBlockingQueue<>(settings.maxConcurrentQueries()), daemon("baton-http-query"),
                new ThreadPoolExecutor.AbortPolicy());
        scrapes = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(METRICS_WAITING),
                daemon("baton-http-metrics"), new ThreadPoolExecutor.AbortPolicy());
        server.setExecutor(executor);
        server.createContext("/healthz", exchange -> {
            if (tooLong(exchange)) return;
            KafkaStreams.State s = state.get();
            boolean alive = s != KafkaStreams.State.ERROR && s != KafkaStreams.State.PENDING_ERROR;
            text(exchange, alive ? 200 : 503, (alive ? "ok" : "failed") + " (" + s + ")\n");
        });
        server.createContext("/readyz", exchange -> {
            if (tooLong(exchange)) return;
            Readiness.Report r = readiness.report();
            respond(exchange, r.status(), "application/json; charset=utf-8", r.body().getBytes(StandardCharsets.UTF_8));
        });
        server.createContext("/metrics", exchange -> {
            if (tooLong(exchange)) return;
            offload(exchange, scrapes, "too many scrapes at once; retry shortly", () -> respond(exchange, 200,
                    "text/plain; version=0.0.4; charset=utf-8", metrics.scrape().getBytes(StandardCharsets.UTF_8)));
        });
        server.createContext("/sessions/", exchange -> {
            if (tooLong(exchange)) return;
            offload(exchange, queries, "too many session queries at once; retry shortly",
                    () -> session(exchange, sessions, tokens));
        });
        server.createContext("/console", exchange -> {
            if (tooLong(exchange)) return;
            String path = exchange.getRequestURI().getRawPath();
            if (path.equals("/console") || path.equals("/console/")) {
                console(exchange);
            } else if (path.startsWith(CONSOLE_SESSIONS_PREFIX) && path.endsWith("/sessions")) {
                offload(exchange, queries, "too many session queries at once; retry shortly",
                        () -> sessionList(exchange, path, sessions, tokens));
            } else {
                respond(exchange, SessionQuery.Answer.error(404, "use /console or /console/api/tenants/{tenant_id}/sessions"));
            }
        });
        server.createContext("/", exchange -> text(exchange, 404,
                "Baton: /healthz /readyz /metrics /sessions/{tenant_id}/{session_id} /console\n"));
    }

    private static final String CONSOLE_SESSIONS_PREFIX = "/console/api/tenants/";
    private static final byte[] CONSOLE_PAGE = ViewerPage.console().getBytes(StandardCharsets.UTF_8);

    /** The viewer page: static, no data, so no token is needed to load it (its script asks with the user's token). */
    private static void console(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestMethod().equals("GET")) {
            respond(exchange, SessionQuery.Answer.error(405, "read-only: GET only"));
            return;
        }
        exchange.getResponseHeaders().set("Content-Security-Policy", ViewerPage.consoleHeaderPolicy());
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
        exchange.getResponseHeaders().set("X-Frame-Options", "DENY");
        respond(exchange, 200, "text/html; charset=utf-8", CONSOLE_PAGE);
    }

    /** {@code GET /console/api/tenants/{tenant}/sessions}: behind the tenant's token, as a session query is. */
    private static void sessionList(HttpExchange exchange, String path, Supplier<QueryHandler> sessions,
            TenantTokens tokens) throws IOException {
        if (!exchange.getRequestMethod().equals("GET")) {
            respond(exchange, SessionQuery.Answer.error(405, "read-only: GET only"));
            return;
        }
        String tenant;
        try {
            tenant = decode(path.substring(CONSOLE_SESSIONS_PREFIX.length(), path.length() - "/sessions".length()));
        } catch (IllegalArgumentException e) {
            respond(exchange, SessionQuery.Answer.error(400, "malformed percent-encoding"));
            return;
        }
        if (!QueryParameters.isQueryableId(tenant)) {
            respond(exchange, SessionQuery.Answer.error(400,
                    "the tenant must be an id (1–128 characters of [A-Za-z0-9._:-], not . or ..)"));
            return;
        }
        if (!authorized(exchange, tokens, tenant)) return;
        QueryHandler query = sessions.get();
        SessionQuery.Answer answer;
        try {
            answer = query == null ? SessionQuery.Answer.error(503, "starting") : query.sessions(tenant);
        } catch (RuntimeException e) {
            answer = SessionQuery.Answer.error(500, "listing failed: " + e.getClass().getSimpleName());
        }
        respond(exchange, answer);
    }

    /** Checks the bearer token for {@code tenant}; answers the refusal (and returns false) when it does not hold. */
    private static boolean authorized(HttpExchange exchange, TenantTokens tokens, String tenant) throws IOException {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        TenantTokens.Access access = tokens == null ? TenantTokens.Access.MISSING : tokens.check(authorization, tenant);
        switch (access) {
            case MISSING, INVALID -> {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"baton\"");
                respond(exchange, SessionQuery.Answer.error(401, tokens == null
                        ? "session queries are off: no baton.http.tokens-file is configured"
                        : "a bearer token for this tenant is needed (Authorization: Bearer TOKEN)"));
                return false;
            }
            case UNAVAILABLE -> {
                respond(exchange, SessionQuery.Answer.error(503, "session queries are refused: the tokens file cannot "
                        + "be read or is invalid, so every token is revoked until an operator fixes it"));
                return false;
            }
            case FORBIDDEN -> {
                respond(exchange, SessionQuery.Answer.error(403, "this token is not for this tenant"));
                return false;
            }
            case ALLOWED -> {
                return true;
            }
        }
        return false;
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
        try {
            tenant = decode(parts[0]);
            session = decode(parts[1]);
        } catch (IllegalArgumentException e) {
            respond(exchange, SessionQuery.Answer.error(400, "malformed percent-encoding"));
            return;
        }
        if (!QueryParameters.isQueryableId(tenant) || !QueryParameters.isQueryableId(session)) {
            respond(exchange, SessionQuery.Answer.error(400,
                    "tenant and session must be ids (1–128 characters of [A-Za-z0-9._:-], not . or ..)"));
            return;
        }
        Map<String, String> params;
        try {
            params = QueryParameters.parse(exchange.getRequestURI().getRawQuery());
        } catch (QueryParameters.Invalid e) {
            respond(exchange, SessionQuery.Answer.error(400, e.getMessage()));
            return;
        }
        if (!authorized(exchange, tokens, tenant)) return;
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
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

    /** Work that answers an exchange and may throw. */
    @FunctionalInterface
    private interface Work {
        void run() throws IOException;
    }

    /** Runs {@code work} on {@code pool}, or answers 503 at once when the pool is full: never waits on this thread. */
    private static void offload(HttpExchange exchange, ThreadPoolExecutor pool, String busy, Work work)
            throws IOException {
        try {
            pool.execute(() -> {
                try {
                    work.run();
                } catch (IOException | RuntimeException e) {
                    exchange.close();
                }
            });
        } catch (RejectedExecutionException full) {
            exchange.getResponseHeaders().set("Retry-After", "1");
            respond(exchange, SessionQuery.Answer.error(503, busy));
        }
    }

    void start() {
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Session queries running or waiting (for tests). */
    int queriesInFlight() {
        return queries.getActiveCount() + queries.getQueue().size();
    }

    /** Scrapes running or waiting (for tests). */
    int scrapesInFlight() {
        return scrapes.getActiveCount() + scrapes.getQueue().size();
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
        scrapes.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
            queries.awaitTermination(5, TimeUnit.SECONDS);
            scrapes.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
