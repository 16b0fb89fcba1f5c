package dev.baton.service;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.baton.app.AppFailure;
import dev.baton.app.BatonVersion;
import dev.baton.app.ExitCodes;
import dev.baton.app.StreamsApp;
import dev.baton.app.TopicLimits;
import dev.baton.config.BatonConfig;
import dev.baton.config.HttpSettings;
import dev.baton.config.ConfigLoader;
import dev.baton.processor.TenantLabels;
import dev.baton.warmup.Warmup;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * {@code baton run}: the topology against a real cluster until SIGTERM / Ctrl-C, with the HTTP
 * endpoints. On a signal it stops taking records, lets Kafka Streams commit what is in flight and
 * leave the consumer group (so the partitions move at once), then exits.
 */
public final class ServiceRunner {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceRunner.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(45);
    /** {@code /readyz}'s reason while the warm-up runs. */
    static final String WARMING_UP = "warming up";

    private final ServiceOptions options;

    public ServiceRunner(ServiceOptions options) {
        this.options = options;
    }

    public int run() throws IOException, InterruptedException {
        BatonConfig.Builder builder = ConfigLoader.builder(options.config(), System.getenv());
        ServiceOptions c = options;
        ConfigLoader.attempt(b -> {
            if (c.bootstrapServers() != null) {
                b.flag("--bootstrap-servers", c.bootstrapServers());
            }
            if (c.schemaRegistryUrl() != null) {
                b.flag("--schema-registry-url", c.schemaRegistryUrl());
            }
            if (c.format() != null) {
                b.flag("--format", c.format());
            }
            if (options.httpPort() != null) {
                b.flag("--http-port", options.httpPort().toString());
            }
            return b;
        }, builder);
        BatonConfig config = ConfigLoader.build(builder);
        // stable client ids: Kafka Streams names its clients (and so the metric series) after client.id,
        // or after a new UUID at every start when it is unset; the instance's host name is stable for a
        // StatefulSet pod (deploy/ sets it from the pod name explicitly)
        if (config.get(StreamsConfig.CLIENT_ID_CONFIG) == null || config.get(StreamsConfig.CLIENT_ID_CONFIG).isBlank()) {
            builder.set(StreamsConfig.CLIENT_ID_CONFIG, hostName());
            config = ConfigLoader.build(builder);
        }

        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        metrics.config().meterFilter(MetricFilters.withoutLegacyTopicTags(config))
                .meterFilter(MetricFilters.withoutProcessId());
        AtomicReference<StreamsApp> app = new AtomicReference<>();
        AtomicReference<SessionQuery> sessions = new AtomicReference<>();
        HttpSettings httpSettings = config.http();
        TenantTokens tokens = null;
        if (httpSettings.tokensFile().isPresent()) {
            try {
                tokens = new TenantTokens(httpSettings.tokensFile().get());
            } catch (IOException | IllegalArgumentException e) {
                throw new AppFailure(ExitCodes.USAGE, "cannot read " + BatonConfig.HTTP_TOKENS_FILE + ": " + e.getMessage());
            }
            LOG.info("Session queries need one of the {} bearer tokens of {}", tokens.size(), httpSettings.tokensFile().get());
            tokens.bindTo(metrics);
        } else {
            LOG.warn("No {} is configured: /sessions queries are refused (401)", BatonConfig.HTTP_TOKENS_FILE);
            TenantTokens.bindWithoutFile(metrics);
        }
        // not ready before the warm-up is over, whatever Kafka Streams says (it has not even started then)
        AtomicReference<String> holdBack = new AtomicReference<>(config.warmupMaxTime().isZero() ? null : WARMING_UP);
        Supplier<KafkaStreams.State> streamsState = () -> app.get() == null ? KafkaStreams.State.CREATED : app.get().state();
        Readiness readiness = new Readiness(streamsState, () -> holdBack.get() != null ? holdBack.get()
                : app.get() == null ? null : app.get().pausedReason(), DependencyChecks.of(config), DependencyChecks.INTERVAL);
        HttpEndpoints http = new HttpEndpoints(new HttpEndpoints.Settings(httpSettings.bindAddress(),
                httpSettings.port(), httpSettings.maxUrlChars(), httpSettings.maxConcurrentQueries()),
                streamsState, readiness, metrics, sessions::get, tokens);
        http.start();

        // interactive queries between instances: where this one answers (the HTTP port, once bound)
        if (config.get(StreamsConfig.APPLICATION_SERVER_CONFIG) == null
                || config.get(StreamsConfig.APPLICATION_SERVER_CONFIG).isEmpty()) {
            builder.set(StreamsConfig.APPLICATION_SERVER_CONFIG, hostName() + ":" + http.port());
            config = ConfigLoader.build(builder);
        }
        HostInfo self = HostInfo.buildFromEndpoint(config.get(StreamsConfig.APPLICATION_SERVER_CONFIG));

        // every topic Baton writes to must take a record of baton.max-output-bytes (no poison pill)
        try {
            TopicLimits.check(config, Duration.ofSeconds(15));
        } catch (AppFailure e) {
            http.close();
            readiness.close();
            metrics.close();
            throw e;
        }
        // hand-off spans only when OTEL_* asks for traces (docs/operations.md, "Tracing"); else no SDK at all
        ServiceTracing tracing = ServiceTracing.fromEnvironment();
        if (tracing.on()) LOG.info("Tracing hand-offs with OpenTelemetry (configured by OTEL_* variables)");
        TenantLabels tenantLabels = new TenantLabels(config.metricsTenants());
        StreamsApp streams = new StreamsApp(config, tracing.handoffs(), new LatencyTimers(metrics, tenantLabels));
        app.set(streams);
        new KafkaStreamsMetrics(streams.streams()).bindTo(metrics);
        new ApplicationMeters(streams.streams(), tenantLabels).bindTo(metrics);
        new JvmMemoryMetrics().bindTo(metrics);
        new JvmGcMetrics().bindTo(metrics);
        new JvmThreadMetrics().bindTo(metrics);
        new ClassLoaderMetrics().bindTo(metrics);
        new ProcessorMetrics().bindTo(metrics);
        new UptimeMetrics().bindTo(metrics);
        sessions.set(new SessionQuery(streams.streams(), config, self));

        CountDownLatch stopRequested = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stopRequested.countDown();
            try {
                // keep the JVM alive until the main thread has closed Kafka Streams cleanly
                stopped.await(CLOSE_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "baton-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        LOG.info("Baton {} starting: application.id={}, bootstrap.servers={}, format={}, topics {} -> {}, HTTP on :{}, "
                        + "application.server={}", BatonVersion.version(), config.applicationId(),
                config.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG), config.format(), config.sessionEventsTopic(),
                config.contextSnapshotsTopic(), http.port(), self.host() + ":" + self.port());
        Throwable failure = null;
        boolean everRunning = false;
        // start() blocks until the global tenant-policies table is loaded, which takes forever when the
        // brokers are unreachable: start on a thread of its own so that a SIGTERM is still honoured
        AtomicReference<Throwable> startFailure = new AtomicReference<>();
        Thread starter = new Thread(() -> {
            try {
                streams.start();
            } catch (RuntimeException e) {
                startFailure.set(e);
            }
        }, "baton-start");
        try {
            warmUp(config, holdBack, stopRequested);
            if (stopRequested.getCount() > 0) starter.start();
            while (!stopRequested.await(500, TimeUnit.MILLISECONDS)) {
                everRunning |= streams.state() == KafkaStreams.State.RUNNING;
                if (startFailure.get() != null) {
                    failure = startFailure.get();
                    break;
                }
                KafkaStreams.State state = streams.state();
                if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.PENDING_ERROR
                        || state == KafkaStreams.State.NOT_RUNNING || state == KafkaStreams.State.PENDING_SHUTDOWN) {
                    try {
                        streams.throwIfFailed();
                        failure = new IllegalStateException("Kafka Streams stopped (state " + state + ")");
                    } catch (AppFailure e) {
                        failure = e;
                    }
                    break;
                }
            }
            LOG.info(failure == null ? "Stopping: committing and leaving the group…" : "Stopping after a failure…");
        } finally {
            if (starter.isAlive()) {
                starter.interrupt(); // still starting: stop waiting for the cluster
                starter.join(TimeUnit.SECONDS.toMillis(10));
            }
            // never running: nothing in flight to commit, and the cluster is probably unreachable
            Duration closeTimeout = everRunning ? CLOSE_TIMEOUT : Duration.ofSeconds(10);
            boolean clean = streams.close(closeTimeout);
            tracing.close(); // after Kafka Streams: the spans of the last records are flushed too
            http.close();
            readiness.close();
            metrics.close();
            // logged before the shutdown hook is released: the JVM may halt right after
            LOG.info(clean ? "Stopped." : "Stopped (Kafka Streams did not close within " + closeTimeout.toSeconds() + " s).");
            stopped.countDown();
        }
        if (failure != null) {
            throw failure instanceof AppFailure cli ? cli
                    : new AppFailure(ExitCodes.FAILED, failure.getMessage(), failure);
        }
        return ExitCodes.OK;
    }

    /**
     * Warms the per-event code before the instance joins the consumer group ({@link Warmup}), so that the partitions
     * it takes are not served by interpreted code; then lets {@code /readyz} follow Kafka Streams' state. Stops early
     * on a shutdown request.
     */
    static void warmUp(BatonConfig config, AtomicReference<String> holdBack, CountDownLatch stopRequested) {
        try {
            LOG.info("{}", Warmup.forConfig(config).run(config.warmupMaxTime(), () -> stopRequested.getCount() == 0)
                    .describe());
        } catch (RuntimeException e) {
            // the warm-up is an optimisation: a failure of it must not keep the instance from serving
            LOG.warn("Warm-up failed; starting without it", e);
        } finally {
            holdBack.set(null);
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
