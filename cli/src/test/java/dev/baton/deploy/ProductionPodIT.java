package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.avro.ContextSnapshot;
import dev.baton.engine.model.SessionKey;
import dev.baton.ingest.SessionEventEncoder;
import dev.baton.it.RealSchemaRegistry;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.HttpSchemaRegistryClient;

/**
 * What a platform deploys, run for real: the image built from the repository's Dockerfile, unmodified, and started
 * the way Kubernetes starts the first pod of {@code deploy/overlays/production}, then probed from outside as the
 * kubelet and Prometheus do.
 *
 * <ol>
 *   <li>Bases: no container registry is reachable, so the Dockerfile's {@code BUILD_IMAGE} (JDK and Maven) and
 *       {@code RUNTIME_IMAGE} (a JRE) are Debian roots made by mmdebstrap from the machine's apt sources
 *       ({@link ImageBases}).</li>
 *   <li>Build: {@code podman build} of the Dockerfile with the host's local Maven repository mounted as an overlay and
 *       {@code MAVEN_BUILD_ARGS="-o -Dmaven.repo.local=/host-m2/repository"} (what a user without Maven Central does),
 *       in the docker format (the OCI format has no HEALTHCHECK).</li>
 *   <li>Pod: the rendered overlay ({@code kubectl kustomize}) read as data by {@link PodAsContainer}: args, the
 *       environment (ConfigMap, fieldRefs, the Secret's keys), user and fsGroup, read-only root, dropped capabilities,
 *       no privilege escalation, memory limit, and every volume where the pod mounts it (the ConfigMap's
 *       baton.properties, the Secret's files, the emptyDir, the state volume). The container has its own network
 *       namespace on a podman network of its own and is reached at its own address, as the kubelet reaches a pod's
 *       IP.</li>
 *   <li>Cluster: a real broker ({@link StandaloneBroker}) and a real schema registry, both started here on the
 *       network's gateway address, the topics made from the overlay's KafkaTopics. The Secret {@code
 *       baton-credentials} is the test's, as a user creates it (registry URL, SASL line, http-tokens); any other
 *       Secret the pod names (the Kafka cluster's CA, for TLS) is empty, as the test's broker speaks plaintext.</li>
 * </ol>
 *
 * <p><b>The one difference from production is the Kafka cluster</b>: the overlay points at a SASL_SSL listener of a
 * three-broker Strimzi cluster; here the broker is one node without TLS. So three settings are replaced, by
 * environment variables (which win over baton.properties and the ConfigMap): {@code BATON_BOOTSTRAP_SERVERS} (the
 * test's broker), {@code BATON_SECURITY_PROTOCOL=PLAINTEXT}, and {@code BATON_REPLICATION_FACTOR=1} (one node holds one
 * replica); the topics get one replica and no {@code min.insync.replicas} for the same reason. Everything else is the
 * manifest's, including the image's own defaults (the manifest's image name is replaced by the image built here).
 *
 * <p>Traffic goes only to the loopback address and to the containers this test starts. Needs podman, runc and
 * mmdebstrap, run as root; skipped without them, failed under {@code CI=true} (.ci/run installs them). About a minute
 * per base on a fresh clone, about a minute for the build.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProductionPodIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = RepositoryFiles.root();
    private static final Path WORK = Paths.get("target", "container-it").toAbsolutePath();
    private static final String IMAGE = "localhost/baton-it:production";
    private static final String SECRET = "baton-credentials";
    /** 32+ characters each (TenantTokens' minimum); acme's and globex's tokens. */
    private static final String ACME_TOKEN = "acme-token-0123456789abcdef0123456789";
    private static final String GLOBEX_TOKEN = "globex-token-0123456789abcdef0123456789";

    private static final String SUFFIX = Long.toString(ProcessHandle.current().pid());
    private static final String NETWORK = "baton-it-" + SUFFIX;
    private static final String ANCHOR = "baton-it-anchor-" + SUFFIX;
    private static final String CONTAINER = "baton-it-pod-" + SUFFIX;

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    /** The broker's data and the pod's volumes (the test's Secret among them), removed after the class. */
    @TempDir
    static Path scratch;

    private static Podman podman;
    private static RenderedManifests production;
    private static PodAsContainer pod;
    private static RealSchemaRegistry registry;
    private static StandaloneBroker broker;
    private static String podAddress;
    private static boolean networkCreated;

    @BeforeAll
    static void buildTheImageAndStartItAsTheProductionPod() throws Exception {
        podman = Podman.require(WORK);
        production = RenderedManifests.render(ROOT.resolve("deploy/overlays/production"));
        ImageBases bases = new ImageBases(podman, Paths.get("target", "image-bases").toAbsolutePath());
        List<String> runtimeAndBuild = bases.runtimeAndBuild();
        String runtimeBase = runtimeAndBuild.get(0);
        String buildBase = runtimeAndBuild.get(1);
        buildImage(buildBase, runtimeBase);

        // a network of the test's own; the anchor keeps its bridge (and gateway address) up for the broker to bind
        podman.ok(List.of("network", "create", NETWORK));
        networkCreated = true;
        String gateway = podman.ok(List.of("network", "inspect", NETWORK, "--format", "{{range .Subnets}}{{.Gateway}}{{end}}"));
        podman.ok(List.of("run", "--detach", "--name", ANCHOR, "--network", NETWORK, "--read-only", runtimeBase,
                "sleep", "infinity"));

        registry = new RealSchemaRegistry(gateway);
        registry.start();
        broker = StandaloneBroker.start(scratch.resolve("broker"), gateway);
        broker.createTopics(topicsOfTheOverlay());

        Path volumes = scratch.resolve("volumes");
        Map<String, Map<String, String>> secrets = Map.of(SECRET, Map.of(
                "schema-registry-url", registry.url(),
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"baton\" "
                        + "password=\"unused-without-sasl\";",
                "http-tokens", "# test tokens\n" + ACME_TOKEN + " acme\n" + GLOBEX_TOKEN + " globex\n"));
        pod = new PodAsContainer(production.documents, "baton", "baton", secrets);
        Map<String, String> env = pod.environment(Map.of(
                "BATON_BOOTSTRAP_SERVERS", broker.podBootstrap(),
                "BATON_SECURITY_PROTOCOL", "PLAINTEXT",
                "BATON_REPLICATION_FACTOR", "1"));
        List<String> run = new ArrayList<>(List.of("run"));
        run.addAll(pod.runArguments(CONTAINER, NETWORK, env, volumes));
        run.add(IMAGE);
        run.addAll(pod.containerArgs());
        podman.ok(run);
        podAddress = podman.ok(List.of("inspect", CONTAINER, "--format",
                "{{(index .NetworkSettings.Networks \"" + NETWORK + "\").IPAddress}}"));
        assertThat(podAddress).as("the pod's own address").matches("[0-9.]+").isNotEqualTo(gateway);
    }

    private static void buildImage(String buildBase, String runtimeBase) {
        Path repository = Paths.get(System.getProperty("baton.it.mavenRepository",
                System.getProperty("user.home") + "/.m2/repository")).toAbsolutePath();
        Podman.Result built = podman.run(Duration.ofMinutes(20), "podman-build.log", List.of("build",
                "--format", "docker", "--layers",
                "--volume", repository + ":/host-m2/repository:O",
                "--build-arg", "BUILD_IMAGE=" + buildBase,
                "--build-arg", "RUNTIME_IMAGE=" + runtimeBase,
                "--build-arg", "MAVEN_BUILD_ARGS=-o -Dmaven.repo.local=/host-m2/repository",
                "--tag", IMAGE, "--file", ROOT.resolve("Dockerfile").toString(), ROOT.toString()));
        assertThat(built.ok()).as("podman build of the Dockerfile (log target/container-it/podman-build.log):\n%s",
                built.tail(40)).isTrue();
    }

    /** The overlay's KafkaTopics, with one replica each (one broker), so without min.insync.replicas. */
    private static List<NewTopic> topicsOfTheOverlay() {
        List<NewTopic> topics = new ArrayList<>();
        for (JsonNode d : production.documents) {
            if (!d.path("kind").asText().equals("KafkaTopic")) {
                continue;
            }
            JsonNode spec = d.path("spec");
            Map<String, String> config = new LinkedHashMap<>();
            spec.path("config").properties().forEach(f -> config.put(f.getKey(), f.getValue().asText()));
            config.remove("min.insync.replicas");
            topics.add(new NewTopic(spec.path("topicName").asText(d.at("/metadata/name").asText()),
                    spec.path("partitions").asInt(1), (short) 1).configs(config));
        }
        assertThat(topics).as("the overlay's KafkaTopics").isNotEmpty();
        return topics;
    }

    @AfterAll
    static void stopEverything() throws IOException {
        try {
            if (podman != null) {
                Podman.Result logs = podman.run(Duration.ofMinutes(1), "baton-pod.log", List.of("logs", CONTAINER));
                podman.removeQuietly(CONTAINER);
                podman.removeQuietly(ANCHOR);
                if (networkCreated) {
                    podman.run(Duration.ofMinutes(1), null, List.of("network", "rm", "--force", NETWORK));
                }
                assertThat(logs.output()).as("the pod's log").doesNotContain("Exception in thread");
            }
        } finally {
            if (broker != null) {
                broker.close();
            }
            if (registry != null) {
                registry.close();
            }
        }
    }

    @Test
    @Order(1)
    void shouldPassTheKubeletsStartupLivenessAndReadinessProbesOnThePodsAddress() throws Exception {
        JsonNode container = pod.container();
        awaitProbe("startupProbe", container.path("startupProbe"));
        assertThat(probe(container.path("livenessProbe"))).as("livenessProbe").isBetween(200, 399);
        // readiness follows once the stream threads run; the kubelet keeps probing (up to the startup budget here)
        awaitProbe("readinessProbe", container.path("readinessProbe"));
    }

    @Test
    @Order(2)
    void shouldServeMetricsWhereTheServiceMonitorScrapes() throws Exception {
        JsonNode endpoints = production.documents.stream().filter(d -> d.path("kind").asText().equals("ServiceMonitor"))
                .findFirst().orElseThrow(() -> new AssertionError("the overlay has no ServiceMonitor")).at("/spec/endpoints");
        assertThat(endpoints).isNotEmpty();
        for (JsonNode endpoint : endpoints) {
            int port = pod.containerPort(servicePort("baton", endpoint.path("port").asText()).path("targetPort"));
            String path = endpoint.path("path").asText("/metrics");
            HttpResponse<String> scrape = get(port, path, null, Duration.ofSeconds(10));
            assertThat(scrape.statusCode()).as("scrape of %s", path).isEqualTo(200);
            assertThat(scrape.body()).contains("# TYPE ").contains("baton_").contains("kafka_stream");
        }
    }

    @Test
    @Order(3)
    void shouldTurnEventsIntoSnapshotsOnTheOverlaysTopics() throws Exception {
        ContextSnapshot snapshot = feedASessionAndReadItsSnapshot("acme", "s-1");
        assertThat(snapshot.getTenantId()).isEqualTo("acme");
        assertThat(snapshot.getSessionId()).isEqualTo("s-1");
        assertThat(snapshot.getHandoffId()).isEqualTo("h-1");
    }

    @Test
    @Order(4)
    void shouldAnswerSessionQueriesOnlyWithATokenOfTheMountedFileForItsTenant() throws Exception {
        int port = pod.containerPort(servicePort("baton", "http").path("targetPort"));
        // the token a client holds is one of the file the pod reads (the Secret's http-tokens, mounted)
        String tokensFile = production.documents.stream().filter(d -> d.path("kind").asText().equals("ConfigMap"))
                .map(d -> d.at("/data/baton.properties").asText()).filter(s -> !s.isEmpty()).findFirst().orElseThrow()
                .lines().filter(l -> l.startsWith("baton.http.tokens-file=")).findFirst()
                .orElseThrow(() -> new AssertionError("baton.properties sets no baton.http.tokens-file"))
                .substring("baton.http.tokens-file=".length()).strip();
        List<String> lines = Files.readAllLines(pod.hostPath(tokensFile));
        String acme = lines.stream().filter(l -> l.endsWith(" acme")).findFirst().orElseThrow().split(" ")[0];

        String path = "/sessions/acme/s-1";
        HttpResponse<String> allowed = get(port, path, acme, Duration.ofSeconds(10));
        assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
        assertThat(allowed.body()).contains("s-1");
        assertThat(get(port, path, null, Duration.ofSeconds(10)).statusCode()).as("without a token").isEqualTo(401);
        assertThat(get(port, path, GLOBEX_TOKEN, Duration.ofSeconds(10)).statusCode()).as("another tenant's token")
                .isEqualTo(403);
    }

    @Test
    @Order(5)
    void shouldReportHealthyByTheImagesHealthCheckProbingWhatTheKubeletProbes() {
        String healthcheck = podman.ok(List.of("image", "inspect", IMAGE, "--format", "{{json .Config.Healthcheck}}"));
        JsonNode liveness = pod.container().path("livenessProbe").path("httpGet");
        assertThat(healthcheck).as("the image's HEALTHCHECK asks the liveness probe's path")
                .contains("GET " + liveness.path("path").asText() + " ");
        Podman.Result check = podman.run(Duration.ofMinutes(1), null, List.of("healthcheck", "run", CONTAINER));
        assertThat(check.exitCode()).as("podman healthcheck run: %s", check.output()).isZero();
    }

    @Test
    @Order(6)
    void shouldStopCleanlyOnSigtermWithinTheGracePeriod() {
        podman.ok(List.of("stop", CONTAINER));
        String state = podman.ok(List.of("inspect", CONTAINER, "--format", "{{.State.ExitCode}}"));
        assertThat(state).as("killed after the grace period (137)?").isNotEqualTo("137");
        assertThat(podman.ok(List.of("logs", CONTAINER))).contains("Stopped.");
    }

    @Test
    @Order(7)
    void shouldLogOneJsonObjectPerLine() throws IOException {
        // the image sets BATON_LOG_FORMAT=json; the JVM's own notice of JAVA_TOOL_OPTIONS is not a log line
        List<String> lines = podman.ok(List.of("logs", CONTAINER)).lines()
                .filter(l -> !l.isBlank() && !l.startsWith("Picked up JAVA_TOOL_OPTIONS")).toList();
        assertThat(lines).as("the pod's log lines").isNotEmpty();
        ObjectMapper json = new ObjectMapper();
        for (String line : lines) {
            JsonNode entry = json.readTree(line);
            assertThat(entry.isObject()).as("a JSON object: %s", line).isTrue();
            assertThat(entry.path("level").asText()).as("level of %s", line).isNotEmpty();
            assertThat(entry.path("message").isTextual()).as("message of %s", line).isTrue();
            assertThat(entry.path("time").asText()).as("time of %s", line).endsWith("Z");
        }
        assertThat(lines).anyMatch(l -> l.contains("\"message\":\"Stopped.\""));
    }

    private static ContextSnapshot feedASessionAndReadItsSnapshot(String tenant, String session) throws Exception {
        HttpSchemaRegistryClient registryClient = new HttpSchemaRegistryClient(registry.url());
        SessionEventEncoder encoder = SessionEventEncoder.avro(registryClient);
        Map<String, Object> producerProps = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.hostBootstrap(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        byte[] key = SessionKey.format(tenant, session).getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (ObjectNode event : List.of(turn(tenant, session, 1, 0, "USER", "The deploy fails; please look."),
                    turn(tenant, session, 2, 1, "ASSISTANT", "It fails on the read-only root; handing over."),
                    handoff(tenant, session, 3))) {
                producer.send(new ProducerRecord<>("baton.session-events", key,
                        encoder.encode("baton.session-events", JSON.writeValueAsBytes(event)))).get(30, TimeUnit.SECONDS);
            }
        }
        ConfluentAvroCodec<ContextSnapshot> codec = new ConfluentAvroCodec<>(registryClient, ContextSnapshot.class);
        Map<String, Object> consumerProps = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.hostBootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG, "production-pod-it", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of("baton.context-snapshots"));
            // a bound on waiting, not a speed assertion: a snapshot that has not come in two minutes will not come
            return Awaitility.await("a snapshot of " + tenant + "/" + session).atMost(Duration.ofMinutes(2))
                    .pollInSameThread().pollInterval(Duration.ZERO).until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                            ContextSnapshot snapshot = codec.deserialize(r.value());
                            if (snapshot.getSessionId().equals(session)) {
                                return snapshot;
                            }
                        }
                        return null;
                    }, Objects::nonNull);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no snapshot of " + tenant + "/" + session + " within 2 minutes; pod log:\n"
                    + podman.run(Duration.ofMinutes(1), null, List.of("logs", "--tail", "60", CONTAINER)).output(), e);
        }
    }

    private static ObjectNode envelope(String tenant, String session, int n) {
        ObjectNode o = JSON.createObjectNode();
        o.put("event_id", session + "-e" + n);
        o.put("tenant_id", tenant);
        o.put("session_id", session);
        o.put("occurred_at", "2026-12-03T10:00:0" + n + ".000Z");
        return o;
    }

    private static ObjectNode turn(String tenant, String session, int n, long seq, String role, String text) {
        ObjectNode o = envelope(tenant, session, n);
        o.putObject("turn").put("seq", seq).put("agent", "coder").put("role", role).put("text", text);
        return o;
    }

    private static ObjectNode handoff(String tenant, String session, int n) {
        ObjectNode o = envelope(tenant, session, n);
        o.putObject("handoff").put("handoff_id", "h-1").put("to_agent", "reviewer").put("target", "LOCAL");
        return o;
    }

    /** The port of Service {@code service} named {@code name}. */
    private static JsonNode servicePort(String service, String name) {
        for (JsonNode p : pod.object("Service", service).at("/spec/ports")) {
            if (p.path("name").asText().equals(name)) {
                return p;
            }
        }
        throw new AssertionError("Service " + service + " has no port " + name);
    }

    /** Probes as the kubelet does until one succeeds, at most failureThreshold times, periodSeconds apart. */
    private static void awaitProbe(String name, JsonNode spec) throws Exception {
        assertThat(spec.isMissingNode()).as("the container has a %s", name).isFalse();
        int attempts = spec.path("failureThreshold").asInt(3);
        if (name.equals("readinessProbe")) {
            JsonNode startup = pod.container().path("startupProbe");
            attempts = Math.max(attempts, startup.path("failureThreshold").asInt(3) * startup.path("periodSeconds").asInt(10)
                    / Math.max(1, spec.path("periodSeconds").asInt(10)));
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(spec.path("initialDelaySeconds").asInt(0)));
        String last = "";
        for (int i = 0; i < attempts; i++) {
            assertThat(podman.ok(List.of("inspect", CONTAINER, "--format", "{{.State.Running}}")))
                    .as("the container is running; log:\n%s", podLog()).isEqualTo("true");
            try {
                int status = probe(spec);
                if (status >= 200 && status < 400) {
                    return;
                }
                last = "HTTP " + status;
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(spec.path("periodSeconds").asInt(10)));
        }
        throw new AssertionError(name + " failed " + attempts + " times (the kubelet would restart the pod); last: " + last
                + "\npod log:\n" + podLog());
    }

    /** One httpGet probe against the pod's address, with the probe's timeout. */
    private static int probe(JsonNode spec) throws IOException, InterruptedException {
        JsonNode get = spec.path("httpGet");
        assertThat(get.isMissingNode()).as("an httpGet probe: %s", spec).isFalse();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(get.path("scheme").asText("HTTP").toLowerCase()
                        + "://" + podAddress + ":" + pod.containerPort(get.path("port")) + get.path("path").asText("/")))
                .timeout(Duration.ofSeconds(spec.path("timeoutSeconds").asInt(1))).header("User-Agent", "kube-probe/1.31");
        for (JsonNode h : get.path("httpHeaders")) {
            request.header(h.path("name").asText(), h.path("value").asText());
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static HttpResponse<String> get(int port, String path, String token, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + podAddress + ":" + port + path)).timeout(timeout);
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String podLog() {
        return podman.run(Duration.ofMinutes(1), null, List.of("logs", "--tail", "60", CONTAINER)).tail(60);
    }
}
