package dev.baton.service;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.streams.KafkaStreams;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The HTTP side of {@code baton run} (JDK's built-in server, a few threads):
 * <ul>
 *   <li>{@code /healthz}: 200 while the process runs and Kafka Streams has not failed;</li>
 *   <li>{@code /readyz}: 200 when Kafka Streams is RUNNING, 503 otherwise (starting, rebalancing,
 *       failed);</li>
 *   <li>{@code /metrics}: Prometheus text (Kafka Streams, Baton's counters, JVM);</li>
 *   <li>{@code /sessions/{tenant}/{session}}: see {@link SessionQuery}.</li>
 * </ul>
 */
final class HttpEndpoints implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor;

  HttpEndpoints(int port, Supplier<KafkaStreams.State> state, PrometheusMeterRegistry metrics,
      Supplier<SessionQuery> sessions)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 64);
    executor = Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "baton-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/healthz", exchange -> {
      KafkaStreams.State s = state.get();
      boolean alive = s != KafkaStreams.State.ERROR && s != KafkaStreams.State.PENDING_ERROR;
      text(exchange, alive ? 200 : 503, (alive ? "ok" : "failed") + " (" + s + ")\n");
    });
    server.createContext("/readyz", exchange -> {
      KafkaStreams.State s = state.get();
      text(exchange, s == KafkaStreams.State.RUNNING ? 200 : 503, s + "\n");
    });
    server.createContext("/metrics", exchange ->
        respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
            metrics.scrape().getBytes(StandardCharsets.UTF_8)));
    server.createContext("/sessions/", exchange -> {
      if (!exchange.getRequestMethod().equals("GET")) {
        respond(exchange, SessionQuery.Answer.error(405, "read-only: GET only"));
        return;
      }
      String[] parts = exchange.getRequestURI().getRawPath().substring("/sessions/".length()).split("/", -1);
      if (parts.length != 2) {
        respond(exchange, SessionQuery.Answer.error(404, "use /sessions/{tenant_id}/{session_id}"));
        return;
      }
      boolean forwarded = exchange.getRequestHeaders().getFirst(SessionQuery.FORWARDED_HEADER) != null;
      SessionQuery.Answer answer;
      SessionQuery query = sessions.get();
      try {
        answer = query == null ? SessionQuery.Answer.error(503, "starting") : query.query(decode(parts[0]), decode(parts[1]), params(exchange.getRequestURI().getRawQuery()),
            forwarded);
      } catch (RuntimeException e) {
        answer = SessionQuery.Answer.error(500, "query failed: " + e);
      }
      respond(exchange, answer);
    });
    server.createContext("/", exchange -> text(exchange, 404,
        "Baton: /healthz /readyz /metrics /sessions/{tenant_id}/{session_id}\n"));
  }

  void start() {
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
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
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
