package dev.baton.service;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.streams.KafkaStreams;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What {@code /readyz} answers: ready (200) when Kafka Streams is RUNNING, no stream thread is paused after a
 * transient failure, and every dependency check passed at its last run; otherwise 503. The body is one JSON object
 * that says why (docs/operations.md, "HTTP endpoints"): {@code ready}, {@code state}, {@code paused} (the reason a
 * stream thread waits, or null) and {@code dependencies} (each check's name: {@code "ok"}, or the reason it failed).
 *
 * <p>The checks (the schema registry, the brokers) run on a thread of their own every {@code interval}, never on the
 * probe's: a probe reads their last results at once, so a dependency that hangs cannot make the probe time out.
 * Before a check's first run it counts as not yet checked (not ready).
 */
final class Readiness implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String NOT_CHECKED = "not checked yet";

    /**
     * A dependency check: {@code probe} returns when the dependency answers, throws with the reason when it does not;
     * {@code resource} (a client the probe keeps) is closed with the readiness, or null.
     */
    record Check(String name, Runnable probe, AutoCloseable resource) {
        Check(String name, Runnable probe) {
            this(name, probe, null);
        }
    }

    /** The answer: status code and JSON body. */
    record Report(int status, String body) {
    }

    private final Supplier<KafkaStreams.State> state;
    private final Supplier<String> paused;
    private final List<Check> checks;
    private final Map<String, String> results = new ConcurrentHashMap<>();
    private final ScheduledExecutorService runner;

    /** Ready when the client is RUNNING; no checks, never paused. */
    static Readiness ofState(Supplier<KafkaStreams.State> state) {
        return new Readiness(state, () -> null, List.of(), Duration.ofSeconds(5));
    }

    Readiness(Supplier<KafkaStreams.State> state, Supplier<String> paused, List<Check> checks, Duration interval) {
        this.state = state;
        this.paused = paused;
        this.checks = List.copyOf(checks);
        for (Check c : checks) results.put(c.name(), NOT_CHECKED);
        if (checks.isEmpty()) {
            runner = null;
        } else {
            runner = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "baton-readiness");
                t.setDaemon(true);
                return t;
            });
            runner.scheduleWithFixedDelay(this::runChecks, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void runChecks() {
        for (Check c : checks) {
            try {
                c.probe().run();
                results.put(c.name(), "ok");
            } catch (RuntimeException e) {
                results.put(c.name(), e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            }
        }
    }

    Report report() {
        KafkaStreams.State s = state.get();
        String why = paused.get();
        Map<String, String> deps = new LinkedHashMap<>();
        for (Check c : checks) deps.put(c.name(), results.get(c.name()));
        boolean ready = s == KafkaStreams.State.RUNNING && why == null
                && deps.values().stream().allMatch("ok"::equals);
        ObjectNode body = JSON.createObjectNode();
        body.put("ready", ready);
        body.put("state", String.valueOf(s));
        body.put("paused", why);
        ObjectNode d = body.putObject("dependencies");
        deps.forEach(d::put);
        return new Report(ready ? 200 : 503, body.toString() + "\n");
    }

    @Override
    public void close() {
        if (runner != null) runner.shutdownNow();
        for (Check c : checks) {
            if (c.resource() == null) continue;
            try {
                c.resource().close();
            } catch (Exception ignored) {
                // closing at shutdown: nothing to do about a client that does not close cleanly
            }
        }
    }
}
