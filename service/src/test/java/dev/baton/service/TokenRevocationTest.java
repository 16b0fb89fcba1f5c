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
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.apache.kafka.streams.KafkaStreams;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The tokens file is the only say on who may query: a token taken out of it stops working, and a file that becomes
 * unreadable or invalid revokes every token (503) instead of keeping the old ones, with {@code baton_http_tokens_valid}
 * 0 and the failure counted, until the file is valid again.
 */
class TokenRevocationTest {
    private static final String ACME_TOKEN = "acme-token-0123456789abcdef0123456789";
    private static final String OTHER_TOKEN = "other-token-0123456789abcdef012345678";
    /** How long a changed file may take to be read again (it is looked at once a second): a bound, not a measure. */
    private static final Duration RELOAD_BOUND = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    private Path tokens;
    private TenantTokens tenantTokens;
    private HttpEndpoints http;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws IOException {
        tokens = dir.resolve("tokens");
        Files.writeString(tokens, ACME_TOKEN + " acme\n" + OTHER_TOKEN + " other\n");
        HttpEndpoints.QueryHandler handler = (tenant, session, params, forwarded, authorization) ->
                new SessionQuery.Answer(200, "text/plain", "ok".getBytes(StandardCharsets.UTF_8));
        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        tenantTokens = new TenantTokens(tokens);
        tenantTokens.bindTo(metrics);
        http = new HttpEndpoints(new HttpEndpoints.Settings("127.0.0.1", 0, 2048, 4), () -> KafkaStreams.State.RUNNING,
                metrics, () -> handler, tenantTokens);
        http.start();
    }

    @AfterEach
    void stop() {
        http.close();
    }

    @Test
    void shouldRevokeATokenTakenOutOfTheFile() throws Exception {
        assertThat(query("acme", ACME_TOKEN)).isEqualTo(200);
        replace(OTHER_TOKEN + " other\n"); // a rotated Secret: acme's token is gone
        assertThat(statusOnceChanged("acme", ACME_TOKEN, 200)).isEqualTo(401);
        assertThat(query("other", OTHER_TOKEN)).isEqualTo(200);
        assertThat(metrics()).contains("baton_http_tokens_valid 1.0").contains("baton_http_tokens_reload_failures_total 0.0");
    }

    @Test
    void shouldRevokeEveryTokenWhenTheFileBecomesUnreadable() throws Exception {
        assertThat(query("acme", ACME_TOKEN)).isEqualTo(200);
        Files.delete(tokens);
        Files.createDirectory(tokens); // unreadable as a file, even for root (a mode of 000 is not, for root)
        assertThat(statusOnceChanged("acme", ACME_TOKEN, 200)).isEqualTo(503);
        assertThat(query("other", OTHER_TOKEN)).isEqualTo(503);
        assertThat(metrics()).contains("baton_http_tokens_valid 0.0").contains("baton_http_tokens_reload_failures_total 1.0");

        Files.delete(tokens); // and missing: still closed, the same failure (counted once)
        awaitAReloadOfTheFileAsItIsNow(); // 503 and one failure already held before: show a reload saw it missing
        assertThat(query("acme", ACME_TOKEN)).isEqualTo(503);
        assertThat(metrics()).contains("baton_http_tokens_reload_failures_total 1.0");

        Files.writeString(tokens, OTHER_TOKEN + " other\n"); // fixed: valid again, with what the file now says
        assertThat(statusOnceChanged("other", OTHER_TOKEN, 503)).isEqualTo(200);
        assertThat(query("acme", ACME_TOKEN)).isEqualTo(401);
        assertThat(metrics()).contains("baton_http_tokens_valid 1.0");
    }

    @Test
    void shouldRevokeEveryTokenWhenTheFileBecomesInvalid() throws Exception {
        assertThat(query("acme", ACME_TOKEN)).isEqualTo(200);
        replace(ACME_TOKEN + " acme\nshort-token acme\n");
        assertThat(statusOnceChanged("acme", ACME_TOKEN, 200)).isEqualTo(503);
        assertThat(metrics()).contains("baton_http_tokens_valid 0.0").contains("baton_http_tokens_reload_failures_total 1.0");
    }

    /** Replaces the file the way a Secret update does: a new file moved into place. */
    private void replace(String content) throws IOException {
        Path next = dir.resolve("tokens.next");
        Files.writeString(next, content);
        Files.move(next, tokens, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Returns once the file has been read again after this call (queries ask for the reload), so what follows
     * holds for the file as it is now, not for what was read before.
     */
    private void awaitAReloadOfTheFileAsItIsNow() {
        long before = tenantTokens.reloads();
        Awaitility.await("a reload of the tokens file").atMost(RELOAD_BOUND).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    query("acme", ACME_TOKEN);
                    return tenantTokens.reloads() > before;
                });
    }

    /** The status of a query once it is no longer {@code before} (within {@link #RELOAD_BOUND}). */
    private int statusOnceChanged(String tenant, String token, int before) {
        return Awaitility.await("a status other than " + before).atMost(RELOAD_BOUND).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100)).until(() -> query(tenant, token), status -> status != before);
    }

    private int query(String tenant, String token) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/sessions/" + tenant
                + "/s1")).header("Authorization", "Bearer " + token).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private String metrics() throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
