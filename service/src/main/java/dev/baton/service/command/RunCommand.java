package dev.baton.service.command;

import java.util.concurrent.Callable;

import dev.baton.service.ServiceOptions;
import dev.baton.service.ServiceRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton run}: the long-running service. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Run Baton as a service against a Kafka cluster.",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Consumes baton.session-events and writes a ContextSnapshot to baton.context-snapshots on "
                    + "every hand-off, exactly once, until stopped with SIGTERM or Ctrl-C (it then finishes the "
                    + "records in flight, commits and leaves the group). Scale out by starting more instances "
                    + "with the same application id: Kafka spreads the partitions among them.",
            "",
            "Every option can also come from a BATON_* environment variable or the --config file; a "
                    + "flag wins over the environment, the environment over the file."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "HTTP endpoints (with --http-port):",
            "  /healthz                      the process is alive",
            "  /readyz                       200 when Kafka Streams is RUNNING",
            "  /metrics                      Prometheus metrics (Kafka Streams and Baton)",
            "  /sessions/TENANT/SESSION      the current context of a session (from any instance)",
            "",
            "Examples:",
            "  ./baton run --bootstrap-servers kafka:9092 --schema-registry-url http://registry:8081 --http-port 8080",
            "  BATON_BOOTSTRAP_SERVERS=kafka:9092 BATON_FORMAT=json ./baton run --config baton.properties"
        })
public final class RunCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--http-port", paramLabel = "PORT",
            description = "Serve health, metrics and session queries on this port. Env: BATON_HTTP_PORT.")
    Integer httpPort;

    /** The connection options given (for tests). */
    public ConnectionOptions connection() {
        return connection;
    }

    /** The --http-port given, or null (for tests). */
    public Integer httpPort() {
        return httpPort;
    }

    @Override
    public Integer call() throws Exception {
        return new ServiceRunner(new ServiceOptions(connection.bootstrapServers(), connection.schemaRegistryUrl(),
                connection.format() == null ? null : connection.format().name(), connection.config(), httpPort)).run();
    }
}
