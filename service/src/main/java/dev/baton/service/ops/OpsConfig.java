package dev.baton.service.ops;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;

import dev.baton.config.BatonConfig;
import dev.baton.config.ConfigLoader;
import dev.baton.service.command.ClusterOptions;

/** The configuration of the operations commands: the same sources as {@code baton run}. */
final class OpsConfig {

    private OpsConfig() {
    }

    /**
     * The file, the {@code BATON_*} environment and the flags, as for {@code run}. The value format is set to json
     * here: {@code topics} and {@code reset} never read or write a value, so they need no schema registry (an avro
     * configuration without a registry URL would otherwise be refused).
     */
    static BatonConfig load(ClusterOptions cluster) {
        BatonConfig.Builder builder = ConfigLoader.builder(cluster.config(), System.getenv());
        if (cluster.bootstrapServers() != null) {
            ConfigLoader.attempt(b -> b.flag("--bootstrap-servers", cluster.bootstrapServers()), builder);
        }
        ConfigLoader.attempt(b -> b.set(BatonConfig.FORMAT, "json"), builder);
        return ConfigLoader.build(builder);
    }

    /**
     * The admin client's properties: the connection and security settings of the configuration (what Kafka's
     * AdminClient knows, including {@code admin.}-prefixed overrides), and time limits of {@code timeout} for every
     * call, so that an unreachable cluster is reported after that long instead of Kafka's default minute.
     */
    static Properties adminProperties(BatonConfig config, Duration timeout) {
        Map<String, Object> all = config.kafkaProperties();
        Map<String, Object> admin = new HashMap<>();
        all.forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                admin.put(k, v);
            }
        });
        all.forEach((k, v) -> {
            if (k.startsWith(StreamsConfig.ADMIN_CLIENT_PREFIX)) {
                admin.put(k.substring(StreamsConfig.ADMIN_CLIENT_PREFIX.length()), v);
            }
        });
        admin.remove(ConsumerConfig.CLIENT_ID_CONFIG);
        admin.put(AdminClientConfig.CLIENT_ID_CONFIG, "baton-ops");
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        admin.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
        admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
        admin.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, Math.min(millis, 5_000));
        admin.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, Math.min(millis, 10_000));
        Properties p = new Properties();
        p.putAll(admin);
        return p;
    }
}
