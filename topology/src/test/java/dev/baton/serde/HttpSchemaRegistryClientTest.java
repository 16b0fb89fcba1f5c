package dev.baton.serde;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.avro.SessionEvent;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Against a tiny in-process fake of the Confluent API, served under a path prefix as Apicurio does. */
class HttpSchemaRegistryClientTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PREFIX = "/apis/ccompat/v7";

    record Seen(String method, String path, String contentType, String body) {
    }

    private HttpServer server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private volatile int status = 200;
    private volatile String answer = "{}";

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
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                exchange.getRequestHeaders().getFirst("Content-Type"), body));
        byte[] out = answer.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, out.length);
        exchange.getResponseBody().write(out);
        exchange.close();
    }

    private String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + PREFIX + "/";
    }

    @Test
    void shouldPostTheSchemaToTheSubjectVersionsAndCacheTheId() throws IOException {
        answer = "{\"id\":7}";
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(baseUrl());

        int id = client.register("baton.session-events-value", SessionEvent.getClassSchema());
        int again = client.register("baton.session-events-value", SessionEvent.getClassSchema());

        assertThat(id).isEqualTo(7);
        assertThat(again).isEqualTo(7);
        assertThat(seen).hasSize(1);
        Seen request = seen.get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo(PREFIX + "/subjects/baton.session-events-value/versions");
        assertThat(request.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
        JsonNode body = JSON.readTree(request.body());
        assertThat(body.size()).isEqualTo(1);
        assertThat(new Schema.Parser().parse(body.get("schema").asText())).isEqualTo(SessionEvent.getClassSchema());
    }

    @Test
    void shouldGetASchemaByIdAndCacheIt() {
        answer = JSON.createObjectNode().put("schema", SessionEvent.getClassSchema().toString()).toString();
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(baseUrl());

        Schema schema = client.getById(42);
        client.getById(42);

        assertThat(schema).isEqualTo(SessionEvent.getClassSchema());
        assertThat(seen).extracting(Seen::method, Seen::path).containsExactly(org.assertj.core.groups.Tuple.tuple("GET", PREFIX + "/schemas/ids/42"));
    }

    @Test
    void shouldReportAnUnknownIdAsUnknownSchemaId() {
        status = 404;
        answer = "{\"error_code\":40403,\"message\":\"Schema not found\"}";
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(baseUrl());

        assertThatThrownBy(() -> client.getById(5)).isInstanceOfSatisfying(UnknownSchemaIdException.class, e -> {
            assertThat(e.schemaId()).isEqualTo(5);
            assertThat(e.errorCode()).isEqualTo(40403);
            assertThat(e).hasMessageContaining("Schema not found");
        });
    }

    @Test
    void shouldReportAnIncompatibleSchemaWithTheRegistryMessage() {
        status = 409;
        answer = "{\"error_code\":409,\"message\":\"Schema being registered is incompatible\"}";
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(baseUrl());

        assertThatThrownBy(() -> client.register("s-value", SessionEvent.getClassSchema()))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("HTTP 409")
                .hasMessageContaining("incompatible");
    }

    @Test
    void shouldTreatServerErrorsAsUnavailable() {
        status = 503;
        answer = "{\"error_code\":50003,\"message\":\"busy\"}";
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(baseUrl());

        assertThatThrownBy(() -> client.getById(1)).isInstanceOf(SchemaRegistryUnavailableException.class);
    }

    @Test
    void shouldSayClearlyWhenTheRegistryIsDown() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient("http://127.0.0.1:" + closedPort,
                Duration.ofSeconds(2), Duration.ofSeconds(2));

        assertThatThrownBy(() -> client.getById(1)).isInstanceOf(SchemaRegistryUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + closedPort)
                .hasMessageContaining("not reachable");
    }

    @Test
    void shouldFailOverToTheNextUrlWhenOneIsDown() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        answer = "{\"id\":3}";
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient("http://127.0.0.1:" + closedPort + "," + baseUrl());

        assertThat(client.register("s-value", SessionEvent.getClassSchema())).isEqualTo(3);
    }
}
