package dev.baton.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Confluent-compatible schema registry (Apicurio Registry 2.4.2.Final, built by
 * {@code tools/schema-registry/registry.sh build}) running as a child process on a free port, for
 * integration tests:
 * <pre>{@code @RegisterExtension static final RealSchemaRegistry registry = new RealSchemaRegistry();}</pre>
 * {@link #url()} is the Confluent API base URL ({@code http://127.0.0.1:PORT/apis/ccompat/v7}, or the address given
 * to {@link #RealSchemaRegistry(String)}).
 *
 * <p>When the registry jar has not been built, the tests are skipped, unless the registry is
 * required: system property {@code baton.it.requireRegistry=true}, or environment {@code CI=true}
 * when the property is not set. Then they fail and say how to build it.
 */
public final class RealSchemaRegistry implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    /** Where the jar is, relative to the repository root. */
    static final String JAR_IN_REPOSITORY = "tools/schema-registry/target/quarkus-app/quarkus-run.jar";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String host;
    private Process process;
    private boolean paused;
    private Path log;
    private int port;

    /** A registry on the loopback address. */
    public RealSchemaRegistry() {
        this("127.0.0.1");
    }

    /** A registry listening on {@code host} only (e.g. a container network's gateway, for a container to reach). */
    public RealSchemaRegistry(String host) {
        this.host = host;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /**
     * Starts the registry and waits until it is ready; skips (assumption) or fails when the jar is
     * missing, see the class comment.
     */
    public synchronized RealSchemaRegistry start() {
        if (process != null) {
            return this;
        }
        Path jar = locateJar();
        if (!Files.isRegularFile(jar)) {
            String message = "the schema registry jar " + jar + " is missing; build it with: tools/schema-registry/registry.sh build";
            if (required()) {
                throw new IllegalStateException(message
                        + " (required because " + (System.getProperty("baton.it.requireRegistry") != null
                                ? "-Dbaton.it.requireRegistry=true" : "CI=true") + ")");
            }
            Assumptions.abort(message + " (skipping; set CI=true or -Dbaton.it.requireRegistry=true to fail instead)");
        }
        // a port picked free can be taken before the registry binds it: try a few
        IllegalStateException lastFailure = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                launch(jar, freePort());
                return this;
            } catch (IllegalStateException e) {
                lastFailure = e;
            }
        }
        throw lastFailure;
    }

    /** True when a missing registry jar must fail the tests rather than skip them. */
    static boolean required() {
        String property = System.getProperty("baton.it.requireRegistry");
        if (property != null) {
            return Boolean.parseBoolean(property);
        }
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** The jar named by {@code -Dbaton.it.registryJar}, else found from the working directory upwards. */
    static Path locateJar() {
        String configured = System.getProperty("baton.it.registryJar");
        if (configured != null && !configured.isBlank()) {
            return Paths.get(configured).toAbsolutePath().normalize();
        }
        Path dir = Paths.get("").toAbsolutePath();
        for (Path candidate = dir; candidate != null; candidate = candidate.getParent()) {
            Path jar = candidate.resolve(JAR_IN_REPOSITORY);
            if (Files.isRegularFile(jar)) {
                return jar;
            }
        }
        return dir.resolve(JAR_IN_REPOSITORY);
    }

    private void launch(Path jar, int chosenPort) {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        try {
            Path logDir = Paths.get("target");
            Files.createDirectories(logDir);
            log = logDir.resolve("schema-registry-" + chosenPort + ".log");
            process = new ProcessBuilder(List.of(java,
                    "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-Dquarkus.http.host=" + host, "-Dquarkus.http.port=" + chosenPort,
                    "-jar", jar.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the schema registry", e);
        }
        port = chosenPort;
        // a crashed test JVM must not leave a registry running
        Process started = process;
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly, "schema-registry-kill"));
        awaitReady();
    }

    private void awaitReady() {
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/health/ready"))
                .timeout(Duration.ofSeconds(2)).build();
        try {
            Awaitility.await("the schema registry ready").atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .failFast("the schema registry exited before it was ready", () -> !process.isAlive())
                    .until(() -> {
                        try {
                            return http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                        } catch (IOException notListeningYet) {
                            return false;
                        }
                    });
        } catch (RuntimeException notReady) {
            String tail = logTail();
            stopProcess();
            throw new IllegalStateException(notReady.getMessage() + ":\n" + tail, notReady);
        }
    }

    /** Confluent API base URL, e.g. {@code http://127.0.0.1:40123/apis/ccompat/v7}. */
    public String url() {
        if (process == null) {
            throw new IllegalStateException("the schema registry is not started");
        }
        return "http://" + host + ":" + port + "/apis/ccompat/v7";
    }

    public int port() {
        return port;
    }

    /**
     * Freezes the registry with SIGSTOP: its port stays bound and the kernel still accepts connections, but nothing
     * is answered until {@link #resume()} — a hung (unreachable) registry that keeps its schemas, unlike a restart of
     * this in-memory one.
     */
    public synchronized void pause() {
        signal("STOP");
        paused = true;
    }

    /** Lets a {@link #pause() paused} registry go on (SIGCONT). */
    public synchronized void resume() {
        signal("CONT");
        paused = false;
    }

    private void signal(String name) {
        if (process == null) {
            throw new IllegalStateException("the schema registry is not started");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal the schema registry", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling the schema registry", e);
        }
    }

    @Override
    public synchronized void close() {
        if (paused) {
            resume(); // a stopped process would not act on SIGTERM
        }
        stopProcess();
    }

    private void stopProcess() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(no log: " + e + ")";
        }
    }

    private int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }
}
