package dev.baton.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.avro.SessionEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The registry client's authentication, auto-registration switch and credential-free error messages. */
class RegistryOptionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Seen(String method, String path, String authorization) {
    }

    private HttpServer server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private volatile String latest;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        String path = exchange.getRequestURI().getRawPath();
        seen.add(new Seen(exchange.getRequestMethod(), path, exchange.getRequestHeaders().getFirst("Authorization")));
        String answer;
        int status = 200;
        if (path.endsWith("/versions/latest")) {
            answer = latest == null ? "{\"error_code\":40401,\"message\":\"Subject not found\"}" : latest;
            if (latest == null) status = 404;
        } else if (exchange.getRequestMethod().equals("POST") && !path.endsWith("/versions")) {
            answer = "{\"id\":42,\"version\":3}"; // lookup of an exact schema
        } else {
            answer = "{\"id\":7}";
        }
        byte[] out = answer.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, out.length);
        exchange.getResponseBody().write(out);
        exchange.close();
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private HttpSchemaRegistryClient client(RegistryOptions options) {
        return new HttpSchemaRegistryClient(url(), Duration.ofSeconds(5), Duration.ofSeconds(5), options);
    }

    @Test
    void shouldSendBasicAuthFromTheUserInfoSetting() {
        client(new RegistryOptions("svc:s3cret", null, null, null, null, true))
                .register("t-value", SessionEvent.getClassSchema());
        assertThat(seen).singleElement().extracting(Seen::authorization).isEqualTo(
                "Basic " + Base64.getEncoder().encodeToString("svc:s3cret".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldSendABearerToken() {
        client(new RegistryOptions(null, "tok-123", null, null, null, true))
                .register("t-value", SessionEvent.getClassSchema());
        assertThat(seen).singleElement().extracting(Seen::authorization).isEqualTo("Bearer tok-123");
    }

    @Test
    void shouldUseTheLatestRegisteredSchemaWhenAutoRegistrationIsOff() throws IOException {
        latest = JSON.createObjectNode().put("subject", "t-value").put("version", 5).put("id", 11)
                .put("schema", SessionEvent.getClassSchema().toString()).toString();
        int id = client(new RegistryOptions(null, null, null, null, null, false))
                .register("t-value", SessionEvent.getClassSchema());
        assertThat(id).isEqualTo(11);
        assertThat(seen).extracting(Seen::method).containsOnly("GET"); // nothing registered
    }

    @Test
    void shouldLookUpItsSchemaWhenTheLatestIsAnotherOne() {
        latest = "{\"subject\":\"t-value\",\"version\":6,\"id\":12,\"schema\":\"\\\"string\\\"\"}";
        int id = client(new RegistryOptions(null, null, null, null, null, false))
                .register("t-value", SessionEvent.getClassSchema());
        assertThat(id).isEqualTo(42);
        assertThat(seen).extracting(Seen::path).noneMatch(p -> p.endsWith("/versions"));
    }

    @Test
    void shouldNeverPrintCredentialsOfAnInvalidUrl() {
        for (String url : List.of("http://user:hunter2@exa mple.com:8081", "ftp://user:hunter2@example.com",
                "http://user:hunter2@:8081/x")) {
            assertThatThrownBy(() -> SchemaRegistries.forUrl(url))
                    .isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> {
                        assertThat(e.getMessage()).doesNotContain("hunter2");
                        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                            assertThat(String.valueOf(c.getMessage())).doesNotContain("hunter2");
                        }
                    });
        }
        assertThat(new RegistryOptions("u:p", null, null, "pw", null, true).toString()).doesNotContain("u:p")
                .doesNotContain("pw");
    }
}
