package dev.baton.cli;

import java.io.Console;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.avro.TenantPolicy;
import dev.baton.cli.data.ClusterClients;
import dev.baton.cli.data.PolicyFiles;
import dev.baton.cli.data.TopicReader;
import dev.baton.ingest.TenantPolicyDecoder;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.service.command.ConnectionOptions;
import dev.baton.service.command.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton policy get|put|list|delete}: the tenant policies on {@code baton.tenant-policies} (compacted, keyed by
 * tenant id). A policy is checked by the topology's own {@link TenantPolicyDecoder} before it is written, so a policy
 * Baton would reject is refused here with Baton's reason; a change shows the field-by-field difference first.
 */
@Command(
        name = "policy",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        header = "List, show, set or delete tenant policies (baton.tenant-policies).",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "A tenant policy overrides the application's baton.policy.* defaults for one tenant: the fields of the "
                    + "TenantPolicy record (transcript_budget_chars, brick_max_agents, …), written in a YAML or JSON "
                    + "file; a field left out keeps the default. `put` checks the policy with Baton's own code (a "
                    + "policy Baton would reject is refused with its reason), shows what changes and asks before "
                    + "writing (--yes to skip the question; without a terminal --yes is required). `delete` writes a "
                    + "tombstone: the tenant gets the defaults again. `list` and `get` read the topic to its end."
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%n",
        footer = {
            "Examples:",
            "  baton policy list --config baton.properties",
            "  baton policy get --config baton.properties --tenant acme",
            "  baton policy put --config baton.properties --tenant acme acme-policy.yaml",
            "  baton policy delete --config baton.properties --tenant acme --yes"
        },
        subcommands = {PolicyCommand.ListCommand.class, PolicyCommand.GetCommand.class, PolicyCommand.PutCommand.class,
            PolicyCommand.DeleteCommand.class})
public final class PolicyCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /** What every subcommand shares: the connection, the topic, its format. */
    abstract static class Base implements Callable<Integer> {
        @Mixin
        ConnectionOptions connection;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "15",
                description = "How long to wait for Kafka before giving up. Default: ${DEFAULT-VALUE}.")
        int timeoutSeconds;

        ClusterClients clients;
        final PrintStream out = System.out;

        @Override
        public Integer call() throws Exception {
            clients = ClusterClients.load(connection);
            if (clients.config().tenantPoliciesTopic().isEmpty()) {
                throw new AppFailure(ExitCodes.USAGE, "tenant policies are switched off in this configuration "
                        + "(baton.topic.tenant-policies is empty)");
            }
            return run();
        }

        abstract int run() throws Exception;

        String topic() {
            return clients.config().tenantPoliciesTopic().orElseThrow();
        }

        /** The current policy record of every tenant: the topic read to its end, tombstones applied. */
        Map<String, byte[]> current() throws Exception {
            Map<String, byte[]> latest = new TreeMap<>();
            try (TopicReader reader = new TopicReader(clients.consumerProperties(), topic(),
                    Duration.ofSeconds(timeoutSeconds))) {
                reader.seek(TopicReader.Start.BEGINNING);
                reader.readToEnd(r -> {
                    if (r.key() == null) return true;
                    String tenant = new String(r.key(), StandardCharsets.UTF_8);
                    if (r.value() == null) latest.remove(tenant);
                    else latest.put(tenant, r.value());
                    return true;
                });
            }
            return latest;
        }

        TenantPolicy read(byte[] value) {
            return clients.config().format() == dev.baton.config.BatonConfig.Format.AVRO
                    ? new ConfluentAvroCodec<>(clients.registry(), TenantPolicy.class).deserialize(value)
                    : AvroJson.read(value, TenantPolicy.class);
        }

        /** The current record for the difference shown before a change; null (said so) when it cannot be read. */
        TenantPolicy readForDiff(byte[] value) {
            try {
                return read(value);
            } catch (RuntimeException e) {
                out.println("(the current record cannot be read: " + e.getMessage() + ")");
                return null;
            }
        }

        byte[] encode(TenantPolicy policy) {
            return clients.config().format() == dev.baton.config.BatonConfig.Format.AVRO
                    ? new ConfluentAvroCodec<>(clients.registry(), TenantPolicy.class).serialize(topic(), policy)
                    : AvroJson.write(policy);
        }

        /**
         * Baton's verdict on a record, from the topology's decoder with the application's defaults and output limit.
         * The one place the command validates a policy.
         */
        TenantPolicyDecoder.Result validate(String tenant, byte[] value) {
            return TenantPolicyDecoder.forFormat(clients.format(), clients.registry(), clients.config().defaultPolicy())
                    .withMaxOutputBytes(clients.config().maxOutputBytes())
                    .decode(tenant.getBytes(StandardCharsets.UTF_8), value);
        }

        void write(String tenant, byte[] value) throws Exception {
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(clients.producerProperties())) {
                producer.send(new ProducerRecord<>(topic(), tenant.getBytes(StandardCharsets.UTF_8), value)).get();
            }
        }
    }

    /** Changes need a yes: --yes, or an answer on the terminal. */
    abstract static class Change extends Base {
        @Option(names = {"-y", "--yes"}, description = "Do not ask before writing (for scripts).")
        boolean yes;

        boolean confirmed(String question) {
            if (yes) return true;
            Console console = System.console();
            if (console == null) {
                throw new AppFailure(ExitCodes.USAGE, "not a terminal: nothing written; give --yes to write without asking");
            }
            String answer = console.readLine("%s [y/N] ", question);
            return answer != null && answer.trim().toLowerCase(Locale.ROOT).startsWith("y");
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, header = "List the tenants that have a policy.")
    static final class ListCommand extends Base {
        @Override
        int run() throws Exception {
            Map<String, byte[]> all = current();
            for (Map.Entry<String, byte[]> e : all.entrySet()) {
                TenantPolicyDecoder.Result verdict = validate(e.getKey(), e.getValue());
                int set = 0;
                TenantPolicy p = null;
                try {
                    p = read(e.getValue());
                } catch (RuntimeException ignored) {
                    // reported as invalid below
                }
                if (p != null) {
                    for (int i = 1; i < p.getSchema().getFields().size(); i++) {
                        if (p.get(i) != null) set++;
                    }
                }
                out.printf("%s\t%d field(s) set\t%s%n", e.getKey(), set, verdict.kind() == TenantPolicyDecoder.Kind.VALID
                        ? "valid" : "INVALID: " + verdict.error());
            }
            System.err.printf("policy: %d tenant(s) with a policy on %s%n", all.size(), topic());
            return ExitCodes.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, header = "Print a tenant's policy as YAML.")
    static final class GetCommand extends Base {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The tenant.")
        String tenant;

        @Override
        int run() throws Exception {
            byte[] value = current().get(tenant);
            if (value == null) {
                throw new AppFailure(ExitCodes.FAILED, "tenant " + tenant + " has no policy on " + topic()
                        + " (it gets the application's defaults)");
            }
            out.print(PolicyFiles.toYaml(read(value)));
            TenantPolicyDecoder.Result verdict = validate(tenant, value);
            if (verdict.kind() != TenantPolicyDecoder.Kind.VALID) {
                System.err.println("policy: Baton rejects this record (the tenant keeps its last good policy): "
                        + verdict.error());
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "put", mixinStandardHelpOptions = true,
            header = "Set a tenant's policy from a YAML or JSON file (checked by Baton's own code first).")
    static final class PutCommand extends Change {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The tenant.")
        String tenant;

        @Parameters(index = "0", paramLabel = "FILE", description = "The policy: YAML or JSON TenantPolicy fields.")
        Path file;

        @Override
        int run() throws Exception {
            TenantPolicy policy;
            try {
                policy = PolicyFiles.parse(Files.readString(file), tenant);
            } catch (NoSuchFileException e) {
                throw new AppFailure(ExitCodes.FAILED, "no such file: " + file);
            } catch (IllegalArgumentException e) {
                throw new AppFailure(ExitCodes.FAILED, "policy refused: " + file + ": " + e.getMessage());
            }
            byte[] value = encode(policy);
            TenantPolicyDecoder.Result verdict = validate(tenant, value);
            if (verdict.kind() != TenantPolicyDecoder.Kind.VALID) {
                throw new AppFailure(ExitCodes.FAILED, "policy refused (Baton would reject it): " + verdict.error());
            }
            byte[] old = current().get(tenant);
            TenantPolicy before = old == null ? null : readForDiff(old);
            List<String> diff = PolicyFiles.diff(before, policy);
            if (old != null && diff.isEmpty()) {
                out.println("policy of " + tenant + ": unchanged, nothing written");
                return ExitCodes.OK;
            }
            out.println((old == null ? "new policy for " : "policy of ") + tenant + ":");
            diff.forEach(l -> out.println("  " + l));
            out.flush();
            if (!confirmed("Write this policy to " + topic() + "?")) {
                out.println("nothing written");
                return ExitCodes.FAILED;
            }
            write(tenant, value);
            out.println("written to " + topic() + ": Baton applies it to " + tenant + "'s next records");
            return ExitCodes.OK;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            header = "Delete a tenant's policy (a tombstone: the tenant gets the defaults again).")
    static final class DeleteCommand extends Change {
        @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The tenant.")
        String tenant;

        @Override
        int run() throws Exception {
            byte[] old = current().get(tenant);
            if (old == null) {
                out.println("tenant " + tenant + " has no policy: nothing to delete");
                return ExitCodes.OK;
            }
            TenantPolicy before = readForDiff(old);
            out.println("policy of " + tenant + " (back to the defaults):");
            PolicyFiles.diff(before, null).forEach(l -> out.println("  " + l));
            out.flush();
            if (!confirmed("Delete the policy of " + tenant + "?")) {
                out.println("nothing written");
                return ExitCodes.FAILED;
            }
            write(tenant, null);
            out.println("tombstone written to " + topic());
            return ExitCodes.OK;
        }
    }
}
