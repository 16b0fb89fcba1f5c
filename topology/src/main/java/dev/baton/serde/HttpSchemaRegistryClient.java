package dev.baton.serde;

import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.SchemaNormalization;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small client for the Confluent Schema Registry REST API (also served by Apicurio Registry under
 * {@code /apis/ccompat/v7}), using {@code java.net.http} and Jackson: no Confluent jars needed.
 *
 * <pre>{@code
 * SchemaRegistryClient registry = new HttpSchemaRegistryClient("http://localhost:8081");
 * int id = registry.register("baton.session-events-value", SessionEvent.getClassSchema());
 * Schema writer = registry.getById(id);
 * }</pre>
 *
 * <p>Requests: {@code POST {base}/subjects/{subject}/versions} with {@code {"schema": "..."}} and content type
 * {@code application/vnd.schemaregistry.v1+json} (answer {@code {"id": N}}), and {@code GET {base}/schemas/ids/{id}}
 * (answer {@code {"schema": "..."}}). Both answers are cached for the life of the client. The base URL may carry a
 * path, user info for HTTP basic auth ({@code http://user:secret@host:8081}), and several comma-separated URLs,
 * tried in order while they cannot be reached. Thread-safe.
 */
public final class HttpSchemaRegistryClient implements SchemaRegistryClient {
    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Endpoint> endpoints;
    private final RegistryOptions options;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final Map<String, Integer> idCache = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> schemaCache = new ConcurrentHashMap<>();

    private record Endpoint(String base, String authorization) {
    }

    public HttpSchemaRegistryClient(String urls) {
        this(urls, Duration.ofSeconds(5), Duration.ofSeconds(30));
    }

    public HttpSchemaRegistryClient(String urls, Duration connectTimeout, Duration requestTimeout) {
        this(urls, connectTimeout, requestTimeout, RegistryOptions.DEFAULTS);
    }

    /** With authentication, a trust store and auto-registration as {@code options} say. */
    public HttpSchemaRegistryClient(String urls, Duration connectTimeout, Duration requestTimeout,
                                    RegistryOptions options) {
        this.options = options;
        this.endpoints = parseEndpoints(urls, options);
        this.requestTimeout = requestTimeout;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connectTimeout);
        if (options.trustStore() != null) b.sslContext(sslContext(options));
        this.http = b.build();
    }

    private static SSLContext sslContext(RegistryOptions options) {
        try (InputStream in = Files.newInputStream(options.trustStore())) {
            KeyStore store = KeyStore.getInstance(options.trustStoreType());
            store.load(in, options.trustStorePassword() == null ? null : options.trustStorePassword().toCharArray());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the schema registry trust store " + options.trustStore()
                    + ": " + e.getMessage(), e);
        }
    }

    private static List<Endpoint> parseEndpoints(String urls, RegistryOptions options) {
        List<Endpoint> result = new ArrayList<>();
        for (String raw : urls.split(",")) {
            String url = raw.trim();
            if (url.isEmpty()) continue;
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException e) {
                // the message of URI's exception quotes the URL: neither is printed, it may hold credentials
                throw new IllegalArgumentException("invalid schema registry URL '" + RegistryOptions.redact(url)
                        + "': not a URI (at index " + indexOf(e) + ")");
            }
            if (uri.getScheme() == null || uri.getHost() == null
                    || !(uri.getScheme().equalsIgnoreCase("http") || uri.getScheme().equalsIgnoreCase("https"))) {
                throw new IllegalArgumentException("invalid schema registry URL '" + RegistryOptions.redact(url)
                        + "': expected http(s)://HOST[:PORT][/path]");
            }
            String authorization = null;
            if (options.bearerToken() != null) {
                authorization = "Bearer " + options.bearerToken();
            } else if (options.basicAuthUserInfo() != null) {
                authorization = "Basic " + Base64.getEncoder().encodeToString(
                        options.basicAuthUserInfo().getBytes(StandardCharsets.UTF_8));
            } else if (uri.getRawUserInfo() != null) {
                String userInfo = URLDecoder.decode(uri.getRawUserInfo(), StandardCharsets.UTF_8);
                authorization = "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
            }
            String base = uri.getScheme() + "://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "")
                    + (uri.getRawPath() == null ? "" : uri.getRawPath());
            while (base.endsWith("/")) base = base.substring(0, base.length() - 1);
            result.add(new Endpoint(base, authorization));
        }
        if (result.isEmpty()) throw new IllegalArgumentException("no schema registry URL given");
        return List.copyOf(result);
    }

    private static String indexOf(IllegalArgumentException e) {
        return e.getCause() instanceof java.net.URISyntaxException s ? Integer.toString(s.getIndex()) : "?";
    }

    @Override
    public int register(String subject, Schema schema) {
        String schemaText = schema.toString();
        String cacheKey = subject + '\n' + schemaText;
        Integer cached = idCache.get(cacheKey);
        if (cached != null) return cached;

        if (!options.autoRegister()) {
            int id = registered(subject, schema);
            idCache.put(cacheKey, id);
            schemaCache.putIfAbsent(id, schema);
            return id;
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("schema", schemaText);
        String path = "/subjects/" + encodePathSegment(subject) + "/versions";
        JsonNode answer = send("POST", path, body.toString(), "register a schema under subject '" + subject + "'", -1);
        JsonNode id = answer.get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new SchemaRegistryException("schema registry answered POST " + path + " without an id: " + clip(answer.toString()));
        }
        int value = id.intValue();
        idCache.put(cacheKey, value);
        schemaCache.putIfAbsent(value, schema);
        return value;
    }

    /**
     * Auto-registration off: the id of {@code schema} as already registered under {@code subject}: the latest version
     * when it is this schema, else the version that is ({@code POST /subjects/{subject}}, a lookup that registers
     * nothing). A subject without it is an error that says so.
     */
    private int registered(String subject, Schema schema) {
        String subjectPath = "/subjects/" + encodePathSegment(subject);
        JsonNode latest = send("GET", subjectPath + "/versions/latest", null,
                "read the latest schema of subject '" + subject + "' (auto-registration is off)", -1);
        JsonNode latestId = latest.get("id");
        JsonNode latestText = latest.get("schema");
        if (latestId != null && latestId.canConvertToInt() && latestText != null && latestText.isTextual()) {
            try {
                Schema latestSchema = new Schema.Parser().parse(latestText.asText());
                if (SchemaNormalization.parsingFingerprint64(latestSchema)
                        == SchemaNormalization.parsingFingerprint64(schema)) {
                    return latestId.intValue();
                }
            } catch (SchemaParseException ignored) {
                // not Avro, or not parseable: look the exact schema up below
            }
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("schema", schema.toString());
        JsonNode found;
        try {
            found = send("POST", subjectPath, body.toString(),
                    "look up Baton's schema under subject '" + subject + "' (auto-registration is off)", -1);
        } catch (SchemaRegistryUnavailableException e) {
            throw e;
        } catch (SchemaRegistryException e) {
            throw new SchemaRegistryException("auto-registration is off and Baton's schema is not registered under "
                    + "subject '" + subject + "' (its latest version is another schema); register it, or turn "
                    + "baton.schema-registry.auto-register on: " + e.getMessage(), e.httpStatus(), e.errorCode(), e);
        }
        JsonNode id = found.get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new SchemaRegistryException("schema registry answered POST " + subjectPath + " without an id: "
                    + clip(found.toString()));
        }
        return id.intValue();
    }

    @Override
    public Schema getById(int id) {
        Schema cached = schemaCache.get(id);
        if (cached != null) return cached;
        String path = "/schemas/ids/" + id;
        JsonNode answer = send("GET", path, null, "fetch schema id " + id, id);
        JsonNode type = answer.get("schemaType");
        if (type != null && !type.isNull() && !"AVRO".equalsIgnoreCase(type.asText())) {
            throw new SchemaRegistryException("schema id " + id + " is a " + type.asText() + " schema, not Avro");
        }
        JsonNode text = answer.get("schema");
        if (text == null || !text.isTextual()) {
            throw new SchemaRegistryException("schema registry answered GET " + path + " without a schema: " + clip(answer.toString()));
        }
        Schema schema;
        try {
            schema = new Schema.Parser().parse(text.asText());
        } catch (SchemaParseException e) {
            throw new SchemaRegistryException("schema id " + id + " is not a valid Avro schema: " + e.getMessage(), 200, -1, e);
        }
        Schema previous = schemaCache.putIfAbsent(id, schema);
        return previous != null ? previous : schema;
    }

    /**
     * Asks the registry whether it answers ({@code GET {base}/subjects}, endpoints in turn, nothing cached): returns
     * when one answers 2xx; throws {@link SchemaRegistryUnavailableException} when none can be reached or one answers
     * 5xx, 408 or 429, and {@link SchemaRegistryException} when it refuses (401, 403, ...). For readiness.
     */
    public void ping() {
        SchemaRegistryUnavailableException unreachable = null;
        for (Endpoint endpoint : endpoints) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(endpoint.base() + "/subjects"))
                    .timeout(requestTimeout).header("Accept", CONTENT_TYPE + ", application/json").GET();
            if (endpoint.authorization() != null) request.header("Authorization", endpoint.authorization());
            HttpResponse<Void> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                unreachable = new SchemaRegistryUnavailableException("schema registry at " + endpoint.base()
                        + " is not reachable (" + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", -1, e);
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryUnavailableException("interrupted while asking the schema registry", -1, e);
            }
            int status = response.statusCode();
            if (status >= 200 && status < 300) return;
            String text = "schema registry at " + endpoint.base() + " answered GET /subjects with HTTP " + status;
            if (status >= 500 || status == 408 || status == 429) {
                throw new SchemaRegistryUnavailableException(text, status, null);
            }
            throw new SchemaRegistryException(text, status, -1, null);
        }
        throw unreachable;
    }

    /** Sends one request, trying each endpoint in turn while it cannot be reached; returns the JSON answer. */
    private JsonNode send(String method, String path, String body, String what, int schemaIdForNotFound) {
        SchemaRegistryUnavailableException unreachable = null;
        for (Endpoint endpoint : endpoints) {
            String url = endpoint.base() + path;
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                    .timeout(requestTimeout)
                    .header("Accept", CONTENT_TYPE + ", application/json");
            if (endpoint.authorization() != null) request.header("Authorization", endpoint.authorization());
            if (body == null) {
                request.GET();
            } else {
                request.header("Content-Type", CONTENT_TYPE)
                        .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            }
            HttpResponse<String> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                unreachable = new SchemaRegistryUnavailableException("schema registry at " + endpoint.base()
                        + " is not reachable (" + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ") while trying to " + what
                        + "; is it running, and is the URL the Confluent API base URL?", -1, e);
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryUnavailableException("interrupted while trying to " + what, -1, e);
            }
            return interpret(response, method + " " + url, what, schemaIdForNotFound);
        }
        throw unreachable;
    }

    private static JsonNode interpret(HttpResponse<String> response, String request, String what, int schemaIdForNotFound) {
        int status = response.statusCode();
        JsonNode json = null;
        try {
            json = response.body() == null || response.body().isBlank() ? null : JSON.readTree(response.body());
        } catch (IOException ignored) {
            // not JSON: reported below with the raw body
        }
        if (status >= 200 && status < 300) {
            if (json == null || !json.isObject()) {
                throw new SchemaRegistryException("schema registry answered " + request + " with HTTP " + status
                        + " and a body that is not a JSON object: " + clip(response.body()), status, -1, null);
            }
            return json;
        }
        int errorCode = json != null && json.has("error_code") ? json.get("error_code").asInt(-1) : -1;
        String message = json != null && json.has("message") ? json.get("message").asText() : clip(response.body());
        String text = "schema registry refused to " + what + ": HTTP " + status
                + (errorCode >= 0 ? " error_code " + errorCode : "") + " (" + message + ") for " + request;
        if (status >= 500 || status == 408 || status == 429) {
            throw new SchemaRegistryUnavailableException(text, status, null);
        }
        if (status == 404 && schemaIdForNotFound >= 0) {
            throw new UnknownSchemaIdException(schemaIdForNotFound, text, status, errorCode);
        }
        throw new SchemaRegistryException(text, status, errorCode, null);
    }

    private static String encodePathSegment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String clip(String s) {
        if (s == null) return "";
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }
}
