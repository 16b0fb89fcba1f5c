package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.baton.cli.BatonCommand;
import org.awaitility.Awaitility;

/**
 * A real {@code baton run} in its own JVM (the test class path, {@link BatonCommand}'s main), as an operator starts
 * it: flags and {@code BATON_*} environment, HTTP on a free port, output to a log file. {@link #close()} sends
 * SIGTERM and waits for a clean stop (SIGKILL after 60 s).
 */
final class BatonRunProcess implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private BatonRunProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /**
     * The environment naming a run's application id and topics ({@code policies} "" for no tenant-policy topic); the
     * map is mutable, for the settings a test adds (replication factor, standbys).
     */
    static Map<String, String> topics(String applicationId, String in, String out, String dlq, String policies) {
        Map<String, String> env = new java.util.HashMap<>();
        env.put("BATON_APPLICATION_ID", applicationId);
        env.put("BATON_TOPIC_SESSION_EVENTS", in);
        env.put("BATON_TOPIC_CONTEXT_SNAPSHOTS", out);
        env.put("BATON_TOPIC_DEAD_LETTERS", dlq);
        env.put("BATON_TOPIC_TENANT_POLICIES", policies);
        return env;
    }

    /**
     * Starts {@code baton run --bootstrap-servers … --http-port …} plus {@code flags}, with {@code env} added to the
     * environment (state directory and application server set here).
     */
    static BatonRunProcess start(Path dir, String name, String bootstrapServers, List<String> flags,
            Map<String, String> env) throws IOException {
        return start(dir, name, "512m", bootstrapServers, flags, env);
    }

    /** {@link #start(Path, String, String, List, Map)} with a maximum heap of {@code heap} ({@code -Xmx}). */
    static BatonRunProcess start(Path dir, String name, String heap, String bootstrapServers, List<String> flags,
            Map<String, String> env) throws IOException {
        int port = freePort();
        Path log = dir.resolve(name + ".log");
        List<String> command = new ArrayList<>(List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
                "-Dlog4j2.shutdownHookEnabled=false", "-cp", System.getProperty("java.class.path"),
                BatonCommand.class.getName(), "run", "--bootstrap-servers", bootstrapServers,
                "--http-port", Integer.toString(port)));
        command.addAll(flags);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("BATON_STATE_DIR", dir.resolve("state-" + name).toString());
        builder.environment().put("BATON_APPLICATION_SERVER", "localhost:" + port);
        builder.environment().putAll(env);
        Process process = builder.start();
        // a test JVM that dies must not leave the service running
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "baton-run-kill"));
        return new BatonRunProcess(process, log, port);
    }

    /** Waits until {@code /readyz} answers 200; fails with the log when the process exits first. */
    void awaitReady(Duration timeout) throws Exception {
        Awaitility.await("baton run ready").atMost(timeout).pollInterval(Duration.ofMillis(250))
                .failFast("baton run exited early", this::assertAlive)
                .untilAsserted(() -> assertThat(ready()).as("ready; log:\n%s", log()).isTrue());
    }

    /** True when {@code /readyz} answers 200 now. */
    boolean ready() throws InterruptedException {
        try {
            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/readyz"))
                    .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** The {@code /metrics} page (Prometheus text). */
    String metrics() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: the process stops at once, without committing or leaving its group. */
    void kill() {
        process.destroyForcibly();
    }

    /** Waits up to {@code timeout} for the process to exit; true when it has. */
    boolean waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exit code, once the process has exited. */
    int exitValue() {
        return process.exitValue();
    }

    /** Fails with the log's tail once the process has stopped (for {@code failFast} while waiting on it). */
    void assertAlive() throws IOException {
        if (!isAlive()) throw new AssertionError("baton run stopped; log:\n" + logTail());
    }

    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "(no log)";
    }

    /** The last 20,000 characters of the log, for assertion messages. */
    String logTail() throws IOException {
        String s = log();
        return s.length() > 20_000 ? s.substring(s.length() - 20_000) : s;
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: commit and leave the group
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
