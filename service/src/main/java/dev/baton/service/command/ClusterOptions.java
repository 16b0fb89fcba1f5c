package dev.baton.service.command;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/**
 * Where Kafka is and the properties file with everything else: the options every command that talks to Kafka shares
 * ({@code run}, and {@code backfill} for a replay on a real cluster). One definition, so the flags, their names and
 * their meaning cannot drift apart between commands. Null means "not given as a flag".
 */
public final class ClusterOptions {

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]",
        description = "Kafka brokers to connect to. run: env BATON_BOOTSTRAP_SERVERS. backfill: replays on this "
            + "cluster (on private topics, prefix baton-backfill-, deleted at the end; never the production topics) "
            + "instead of a broker inside this process.")
    String bootstrapServers;

    @Option(names = "--config", paramLabel = "FILE",
        description = "Properties file with Kafka (Streams, producer, consumer, security) and baton.* settings "
            + "(for backfill: the baton.policy.* budgets of the replay). Env: BATON_CONFIG; BATON_* variables "
            + "apply too.")
    Path config;

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public Path config() {
        return config;
    }
}
