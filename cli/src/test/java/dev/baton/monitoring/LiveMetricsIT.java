package dev.baton.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.cli.BatonCommand;
import dev.baton.it.KafkaBroker;

/**
 * {@code baton run} as a real process on the in-process broker, scraped once it has written a
 * snapshot and a dead letter: the docs, the alert rules and the dashboard name only series that
 * this scrape has; lag series are not duplicated; client ids come from the configured instance
 * name (no per-process UUID). The scrape is kept in target/live-metrics.txt for reading.
 */
class LiveMetricsIT {

    private static final KafkaBroker kafka = new KafkaBroker();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final List<Path> DOCS = List.of(Paths.get("..", "docs", "operations.md"), Paths.get("..", "deploy", "README.md"));
    private static final Pattern SESSION_EVENTS_LAG =
            Pattern.compile("(?m)^kafka_consumer_fetch_manager_records_lag\\{[^}]*topic=\"baton.session-events\"");

    @TempDir
    static Path dir;

    private static Process process;
    private static Path log;
    private static String scrape;
    private static String base;

    @BeforeAll
    static void runBatonAndScrape() throws Exception {
        kafka.start();
        kafka.kafka().createTopics(2, "baton.session-events");
        // run refuses output topics that cannot hold its largest record (baton.max-output-bytes, 8 MiB)
        kafka.kafka().createTopics(2, Map.of("max.message.bytes", "8388608"), "baton.context-snapshots",
                "baton.dead-letters");
        kafka.kafka().createTopics(1, Map.of("cleanup.policy", "compact"), "baton.tenant-policies");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        log = dir.resolve("run.log");
        ProcessBuilder builder = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dlog4j2.shutdownHookEnabled=false", "-cp", System.getProperty("java.class.path"),
                BatonCommand.class.getName(), "run", "--bootstrap-servers", kafka.bootstrapServers(), "--format", "json",
                "--http-port", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("BATON_STATE_DIR", dir.resolve("state").toString());
        builder.environment().put("BATON_REPLICATION_FACTOR", "1");
        builder.environment().put("BATON_NUM_STANDBY_REPLICAS", "0");
        builder.environment().put("BATON_APPLICATION_ID", "baton-metrics-it");
        builder.environment().put("BATON_APPLICATION_SERVER", "localhost:" + port);
        // what the StatefulSet sets from the pod name
        builder.environment().put("BATON_CLIENT_ID", "baton-7");
        process = builder.start();
        base = "http://localhost:" + port;
        await(base + "/readyz", Duration.ofSeconds(90));

        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProps(null))) {
            for (String event : List.of(
                    "{\"event_id\":\"e1\",\"tenant_id\":\"acme\",\"session_id\":\"s-1\",\"occurred_at\":\"2026-11-30T09:00:00Z\","
                            + "\"turn\":{\"seq\":0,\"agent\":\"qwen-coder\",\"role\":\"USER\",\"text\":\"Fix the flaky test.\"}}",
                    "{\"event_id\":\"e3\",\"tenant_id\":\"acme\",\"session_id\":\"s-1\",\"occurred_at\":\"2026-11-30T09:00:09Z\","
                            + "\"handoff\":{\"handoff_id\":\"h1\",\"from_agent\":\"qwen-coder\",\"to_agent\":\"claude-opus\","
                            + "\"target\":\"LOCAL\"}}",
                    "not json at all")) {
                producer.send(new ProducerRecord<>("baton.session-events", "acme/s-1".getBytes(StandardCharsets.UTF_8),
                        event.getBytes(StandardCharsets.UTF_8)));
            }
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.consumerProps("metrics-it-reader"))) {
            consumer.subscribe(List.of("baton.context-snapshots"));
            Awaitility.await("a snapshot").atMost(Duration.ofSeconds(60)).pollInSameThread().pollInterval(Duration.ZERO)
                    .until(() -> consumer.poll(Duration.ofMillis(200)).count() > 0);
        }
        scrape = awaitTheSeriesTheTestsCheck();
        Path out = Paths.get("target", "live-metrics.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, scrape);
    }

    /**
     * The first scrape that holds every series the tests below look for. Kafka Streams creates some metrics only once
     * they apply: a task's ({@code kafka_stream_task_*}) when the task is created after the group's first assignment,
     * the state updater's ({@code kafka_stream_state_updater_*}) when its thread starts, a partition's lag after its
     * first fetch. Micrometer's binder, bound when the client is created, looks for new metrics once a minute, so a
     * series appears at the first round after its metric exists: on a loaded machine the assignment can come after the
     * second round, and its series only with the third. So wait for the series themselves, not for a number of
     * rounds; at the bound, the last scrape is kept and the tests say what it lacks.
     */
    private static String awaitTheSeriesTheTestsCheck() throws IOException {
        Set<String> wanted = new TreeSet<>();
        for (Path doc : DOCS) {
            wanted.addAll(MetricNames.inMarkdown(Files.readString(doc)));
        }
        for (String expr : MonitoringFiles.expressions()) {
            wanted.addAll(PromQl.metricNames(expr));
        }
        wanted.remove("up");
        long started = System.nanoTime();
        AtomicReference<String> last = new AtomicReference<>("");
        AtomicReference<Set<String>> lacking = new AtomicReference<>(Set.of());
        try {
            Awaitility.await("every series the docs, the alerts and the dashboard name, and the input's lag")
                    .atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(2)).until(() -> {
                        String text = get(base + "/metrics").body();
                        last.set(text);
                        Set<String> missing = new TreeSet<>(wanted);
                        missing.removeAll(PrometheusText.seriesNames(text));
                        if (!SESSION_EVENTS_LAG.matcher(text).find()) {
                            missing.add("kafka_consumer_fetch_manager_records_lag{topic=\"baton.session-events\"}");
                        }
                        if (!missing.equals(lacking.getAndSet(missing))) { // why a run waits, in its report
                            System.out.printf("LiveMetricsIT: %.0f s after the first snapshot, not yet exported: %s%n",
                                    (System.nanoTime() - started) / 1e9, missing);
                        }
                        return missing.isEmpty();
                    });
        } catch (ConditionTimeoutException e) {
            // at the bound: the tests say what the last scrape lacks
        }
        return last.get();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (process != null) {
                process.destroy();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        } finally {
            kafka.close();
        }
    }

    @Test
    void shouldExportEveryMetricTheDocsName() throws IOException {
        Set<String> exported = PrometheusText.seriesNames(scrape);
        for (Path doc : DOCS) {
            Set<String> named = MetricNames.inMarkdown(Files.readString(doc));
            assertThat(named).as("metrics named in %s", doc).isNotEmpty();
            assertThat(exported).as("series exported by a live baton run, for %s", doc).containsAll(named);
        }
    }

    @Test
    void shouldExportEverySeriesTheAlertsAndTheDashboardUse() throws IOException {
        Set<String> exported = PrometheusText.seriesNames(scrape);
        Set<String> used = new TreeSet<>();
        for (String expr : MonitoringFiles.expressions()) {
            used.addAll(PromQl.metricNames(expr));
        }
        // Prometheus writes `up` itself for every target it scrapes (the absence alerts use it)
        used.remove("up");
        assertThat(used).isNotEmpty();
        assertThat(exported).containsAll(used);
    }

    @Test
    void shouldNotExportALagSeriesTwice() {
        Set<String> lagTopics = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^kafka_consumer_fetch_manager_records_lag\\{[^}]*topic=\"([^\"]+)\"").matcher(scrape);
        while (m.find()) {
            lagTopics.add(m.group(1));
        }
        assertThat(lagTopics).contains("baton.session-events").doesNotContain("baton_session-events");
        assertThat(scrape).doesNotContain("topic=\"baton_session-events\"").doesNotContain("topic=\"baton_tenant-policies\"");
    }

    @Test
    void shouldNotLabelAnySeriesWithAUuid() {
        assertThat(scrape.lines().filter(l -> !l.startsWith("#") && UUID.matcher(l).find()).toList()).isEmpty();
    }

    @Test
    void shouldAnswerTheProbePathsOfTheManifests() throws Exception {
        String statefulSet = Files.readString(Paths.get("..", "deploy", "base", "statefulset.yaml"));
        Matcher path = Pattern.compile("path: (/\\S+)").matcher(statefulSet);
        Set<String> paths = new TreeSet<>();
        while (path.find()) {
            paths.add(path.group(1));
        }
        assertThat(paths).contains("/healthz", "/readyz");
        String monitor = Files.readString(Paths.get("..", "deploy", "components", "monitoring", "servicemonitor.yaml"));
        Matcher scrapePath = Pattern.compile("path: (/\\S+)").matcher(monitor);
        while (scrapePath.find()) {
            paths.add(scrapePath.group(1));
        }
        for (String p : paths) {
            assertThat(get(base + p).statusCode()).as(p).isEqualTo(200);
        }
    }

    @Test
    void shouldNameClientsAfterTheInstanceWithoutAProcessUuid() {
        Set<String> clientIds = new TreeSet<>();
        Matcher m = Pattern.compile("client_id=\"([^\"]*)\"").matcher(scrape);
        while (m.find()) {
            clientIds.add(m.group(1));
        }
        assertThat(clientIds).isNotEmpty().allSatisfy(id -> {
            assertThat(id).startsWith("baton-7");
            assertThat(UUID.matcher(id).find()).as(id).isFalse();
        });
    }

    private static void await(String url, Duration timeout) throws Exception {
        Awaitility.await(url).atMost(timeout).pollInterval(Duration.ofMillis(250))
                .failFast("baton run exited early", () -> assertThat(process.isAlive()).as("log:\n%s", Files.readString(log))
                        .isTrue())
                .untilAsserted(() -> assertThat(status(url)).as("%s; log:\n%s", url, Files.readString(log)).isEqualTo(200));
    }

    /** The status {@code url} answers with, -1 while nothing listens. */
    private static int status(String url) throws InterruptedException {
        try {
            return get(url).statusCode();
        } catch (IOException notYet) {
            return -1;
        }
    }

    private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
