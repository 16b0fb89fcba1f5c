package dev.baton.it;

import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node KRaft broker whose only client listener is SASL_PLAINTEXT with PLAIN (the test kit's own
 * {@code plain-admin} user, for the test's admin, producer and consumer) and SCRAM-SHA-512 (users the test adds with
 * {@link #addScramUser}), as the production overlay's cluster authenticates clients. Authentication is the
 * subject, not authorization: the principals used here are super users. Close it (try-with-resources).
 */
final class SaslScramCluster implements AutoCloseable {

    private static final String ADMIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"plain-admin\" password=\"plain-admin-secret\";";

    private final KafkaClusterTestKit cluster;

    private SaslScramCluster(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /** Starts the broker; {@code superUsers} (besides plain-admin) may do anything once authenticated. */
    static SaslScramCluster start(String... superUsers) throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1)
                .setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .setBootstrapMetadataVersion(MetadataVersion.LATEST_PRODUCTION).build();
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes).setDeleteOnClose(true);
        for (String k : List.of("offsets.topic.replication.factor", "transaction.state.log.replication.factor",
                "transaction.state.log.min.isr", "default.replication.factor", "min.insync.replicas",
                "share.coordinator.state.topic.replication.factor", "share.coordinator.state.topic.min.isr")) {
            builder.setConfigProp(k, "1");
        }
        builder.setConfigProp("group.initial.rebalance.delay.ms", "0");
        builder.setConfigProp("super.users", "User:ANONYMOUS;User:plain-admin"
                + Arrays.stream(superUsers).map(u -> ";User:" + u).collect(Collectors.joining()));
        builder.setConfigProp("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512");
        builder.setConfigProp("listener.name.external.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        KafkaClusterTestKit cluster = builder.build();
        try {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        return new SaslScramCluster(cluster);
    }

    String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Client properties of the kit's PLAIN admin user (for the test's own admin, producers and consumers). */
    Properties plainAdmin() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers());
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", ADMIN_JAAS);
        return p;
    }

    /** Adds (or replaces) a SCRAM-SHA-512 user. */
    void addScramUser(String user, String password) throws Exception {
        try (Admin a = Admin.create(plainAdmin())) {
            a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        // no InterruptedException in the signature (try-with-resources would have to handle it)
        try {
            cluster.close();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("closing the SASL cluster", e);
        }
    }
}
