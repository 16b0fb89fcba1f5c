package dev.baton.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.service.viewer.ViewerPage;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * {@code /console} on a real socket: the page carries no data and a strict policy; its list of sessions is behind
 * the tenant's token, like a session query, and never reaches another tenant's.
 */
class ConsoleEndpointsTest {
    private static final String ACME_TOKEN = "acme-token-0123456789abcdef0123456789";
    private static final String OTHER_TOKEN = "other-token-0123456789abcdef012345678";

    @TempDir
    Path dir;
    private HttpEndpoints http;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> listed = new CopyOnWriteArrayList<>();
    private String base;

    @BeforeEach
    void start() throws IOException {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, ACME_TOKEN + " acme\n" + OTHER_TOKEN + " other\n");
        HttpEndpoints.QueryHandler handler = new HttpEndpoints.QueryHandler() {
            @Override
            public SessionQuery.Answer query(String tenant, String session, Map<String, String> params,
                    boolean forwarded, String authorization) {
                return SessionQuery.Answer.error(404, "none");
            }

            @Override
            public SessionQuery.Answer sessions(String tenant) {
                listed.add(tenant);
                return new SessionQuery.Answer(200, "application/json",
                        ("{\"sessions\":[{\"session_id\":\"secret-of-" + tenant + "\"}]}").getBytes(StandardCharsets.UTF_8));
            }
        };
        http = new HttpEndpoints(new HttpEndpoints.Settings("127.0.0.1", 0, 2048, 4), () -> KafkaStreams.State.RUNNING,
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), () -> handler, new TenantTokens(tokens));
        http.start();
        base = "http://127.0.0.1:" + http.port();
    }

    @AfterEach
    void stop() {
        http.close();
    }

    @Test
    void shouldServeThePageWithoutDataUnderAStrictPolicy() throws Exception {
        HttpResponse<String> page = get("/console", null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(ViewerPage.consoleHeaderPolicy());
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(page.body()).contains("data-mode=\"console\"").doesNotContain("type=\"application/json\"");
        assertThat(get("/console/", null).statusCode()).isEqualTo(200);
        assertThat(get("/console/other", null).statusCode()).isEqualTo(404);
        assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/console"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(405);
    }

    @Test
    void shouldListATenantsSessionsOnlyWithThatTenantsToken() throws Exception {
        assertThat(get("/console/api/tenants/acme/sessions", null).statusCode()).isEqualTo(401);
        HttpResponse<String> other = get("/console/api/tenants/acme/sessions", "Bearer " + OTHER_TOKEN);
        assertThat(other.statusCode()).isEqualTo(403);
        assertThat(other.body()).doesNotContain("secret-of");
        assertThat(get("/console/api/tenants/a%2Fb/sessions", "Bearer " + ACME_TOKEN).statusCode()).isEqualTo(400);
        assertThat(listed).isEmpty();

        HttpResponse<String> own = get("/console/api/tenants/acme/sessions", "Bearer " + ACME_TOKEN);
        assertThat(own.statusCode()).isEqualTo(200);
        assertThat(own.body()).contains("secret-of-acme");
        assertThat(listed).containsExactly("acme");
    }

    private HttpResponse<String> get(String path, String authorization) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10));
        if (authorization != null) request.header("Authorization", authorization);
        return client.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
