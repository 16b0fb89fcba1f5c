package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Smoke test of the real schema registry: the Confluent API registers and serves an Avro schema. */
class RealSchemaRegistryIT {

    @RegisterExtension
    static final RealSchemaRegistry registry = new RealSchemaRegistry();

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void shouldRegisterAnAvroSchemaAndServeItById() throws Exception {
        String schema = "{\"type\":\"record\",\"name\":\"Ping\",\"namespace\":\"dev.baton.it\","
                + "\"fields\":[{\"name\":\"a\",\"type\":\"string\"}]}";
        String body = JSON.writeValueAsString(JSON.createObjectNode().put("schema", schema));

        JsonNode registered = send(HttpRequest.newBuilder(URI.create(registry.url() + "/subjects/ping-value/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
        int id = registered.get("id").asInt();

        JsonNode byId = send(HttpRequest.newBuilder(URI.create(registry.url() + "/schemas/ids/" + id)).GET().build());
        JsonNode latest = send(HttpRequest.newBuilder(
                URI.create(registry.url() + "/subjects/ping-value/versions/latest")).GET().build());

        assertThat(JSON.readTree(byId.get("schema").asText())).isEqualTo(JSON.readTree(schema));
        assertThat(latest.get("id").asInt()).isEqualTo(id);
        assertThat(latest.get("subject").asText()).isEqualTo("ping-value");
    }

    private JsonNode send(HttpRequest request) throws Exception {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("HTTP status of %s: %s", request.uri(), response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}
