package dev.baton.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * A real one-node KRaft broker in a child JVM ({@code kafka.Kafka}, from this test's class path), with two client
 * listeners: {@code HOST} on the loopback address for the test's own clients, and {@code POD} on a container
 * network's gateway address, advertised as that address, for a container on that network. (The in-process test kit
 * advertises {@code localhost}, which inside a container is the container itself.)
 */
final class StandaloneBroker implements AutoCloseable {

    private final Path dir;
    private final String podAddress;
    private final int hostPort;
    private final int podPort;
    private Process process;

    private StandaloneBroker(Path dir, String podAddress, int hostPort, int podPort) {
        this.dir = dir;
        this.podAddress = podAddress;
        this.hostPort = hostPort;
        this.podPort = podPort;
    }

    /** Formats a log directory under {@code dir} and starts the broker; returns once it answers. */
    static StandaloneBroker start(Path dir, String podAddress) throws IOException, InterruptedException {
        StandaloneBroker broker = new StandaloneBroker(dir, podAddress, freePort("127.0.0.1"), freePort(podAddress));
        broker.launch(freePort("127.0.0.1"));
        return broker;
    }

    /** For the test's clients: {@code 127.0.0.1:PORT}. */
    String hostBootstrap() {
        return "127.0.0.1:" + hostPort;
    }

    /** For the container: the gateway address and the {@code POD} listener's port. */
    String podBootstrap() {
        return podAddress + ":" + podPort;
    }

    private void launch(int controllerPort) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path properties = dir.resolve("server.properties");
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "HOST://127.0.0.1:" + hostPort + ",POD://" + podAddress + ":" + podPort
                + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "HOST://127.0.0.1:" + hostPort + ",POD://" + podAddress + ":" + podPort);
        p.put("listener.security.protocol.map", "HOST:PLAINTEXT,POD:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "HOST");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("log.dirs", dir.resolve("logs").toString());
        // one node: every internal topic has one replica (exactly-once needs the transaction log)
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        try (var out = Files.newBufferedWriter(properties)) {
            p.store(out, "StandaloneBroker");
        }
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("java.class.path");
        Path formatLog = dir.resolve("format.log");
        Process format = new ProcessBuilder(java, "-cp", classPath, "kafka.tools.StorageTool", "format",
                "-t", Uuid.randomUuid().toString(), "-c", properties.toString())
                .redirectErrorStream(true).redirectOutput(formatLog.toFile()).start();
        if (!format.waitFor(2, TimeUnit.MINUTES) || format.exitValue() != 0) {
            throw new AssertionError("formatting the broker's storage failed:\n" + Files.readString(formatLog));
        }
        Path log = dir.resolve("broker.log");
        process = new ProcessBuilder(java, "-Xmx512m", "-cp", classPath, "kafka.Kafka", properties.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Process started = process;
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly, "standalone-broker-kill"));
        awaitAnswer(log);
    }

    private void awaitAnswer(Path log) throws IOException {
        // a broker that has not started within two minutes on this machine is broken, not slow
        try {
            Awaitility.await("the broker's answer").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300))
                    .failFast("the broker exited", () -> !process.isAlive()).until(this::answers);
        } catch (ConditionTimeoutException | TerminalFailureException e) {
            throw new AssertionError((process.isAlive() ? "the broker did not answer within 2 minutes:\n"
                    : "the broker exited:\n") + Files.readString(log, StandardCharsets.UTF_8), e);
        }
    }

    /** True once the broker describes its cluster. */
    private boolean answers() throws InterruptedException {
        try (Admin admin = admin()) {
            admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException notYet) {
            return false;
        }
    }

    Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, hostBootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000", AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000"));
    }

    /** Creates topics (one replica each: one node) and waits until they exist. */
    void createTopics(List<NewTopic> topics) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(new ArrayList<>(topics)).all().get(1, TimeUnit.MINUTES);
        }
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    private static int freePort(String address) {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(address))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + address, e);
        }
    }
}
