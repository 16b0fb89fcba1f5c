package dev.baton.service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

import dev.baton.config.BatonConfig;
import dev.baton.topology.RegistryProbe;

/**
 * The dependencies {@code /readyz} checks ({@link Readiness}): the schema registry (an HTTP one; Avro format only)
 * answers {@code GET /subjects}, and a broker of the cluster answers a describe-cluster request.
 */
final class DependencyChecks {
    /** How often the checks run. */
    static final Duration INTERVAL = Duration.ofSeconds(5);
    /** How long one check may take before it counts as failed (below INTERVAL, so checks never pile up). */
    static final Duration TIMEOUT = Duration.ofSeconds(3);

    private DependencyChecks() {
    }

    static List<Readiness.Check> of(BatonConfig config) {
        List<Readiness.Check> checks = new ArrayList<>();
        RegistryProbe.of(config, TIMEOUT).ifPresent(p -> checks.add(new Readiness.Check("schema-registry", p)));
        checks.add(kafka(config));
        return checks;
    }

    static Readiness.Check kafka(BatonConfig config) {
        Map<String, Object> props = new HashMap<>(config.kafkaProperties());
        props.keySet().retainAll(AdminClientConfig.configNames());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "baton-readiness");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        Admin admin = Admin.create(props);
        return new Readiness.Check("kafka", () -> {
            try {
                int nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis()))
                        .nodes().get(TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS).size();
                if (nodes == 0) throw new IllegalStateException("the cluster has no broker");
            } catch (ExecutionException e) {
                throw new IllegalStateException("no broker answered within " + TIMEOUT.toSeconds() + " s ("
                        + e.getCause().getClass().getSimpleName() + ")", e);
            } catch (TimeoutException e) {
                throw new IllegalStateException("no broker answered within " + TIMEOUT.toSeconds() + " s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }, admin);
    }
}
