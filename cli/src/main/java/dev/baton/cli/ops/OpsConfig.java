package dev.baton.cli.ops;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;

import dev.baton.service.command.ConnectionOptions;
import dev.baton.config.BatonConfig;
import dev.baton.config.ConfigLoader;

/** The configuration of the operations commands: the same sources as {@code baton run}. */
final class OpsConfig {

    private OpsConfig() {
    }

    static BatonConfig load(ConnectionOptions connection) {
        BatonConfig.Builder builder = ConfigLoader.builder(connection.config(), System.getenv());
        if (connection.bootstrapServers() != null) {
            ConfigLoader.attempt(b -> b.flag("--bootstrap-servers", connection.bootstrapServers()), builder);
        }
        if (connection.schemaRegistryUrl() != null) {
            ConfigLoader.attempt(b -> b.flag("--schema-registry-url", connection.schemaRegistryUrl()), builder);
        }
        if (connection.format() != null) {
            ConfigLoader.attempt(b -> b.flag("--format", connection.format().name()), builder);
        }
        return ConfigLoader.build(builder);
    }

    /**
     * The admin client's properties: the connection and security settings of the configuration (what
     * Kafka's AdminClient knows, including {@code admin.}-prefixed overrides), nothing else.
     */
    static Properties adminProperties(BatonConfig config) {
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
        Properties p = new Properties();
        p.putAll(admin);
        return p;
    }
}
