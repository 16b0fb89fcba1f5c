package dev.baton.deploy;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.it.KafkaBroker;

/**
 * What the image ships (service/target/baton-service-*.jar + service/target/lib, the files the
 * Dockerfile copies) runs {@code baton run} on its own against a real broker, and the image's
 * HEALTHCHECK command, run as written, reports it healthy. No Docker engine is needed.
 */
class DockerImageIT {

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @TempDir
    Path dir;

    @Test
    void shouldRunTheServiceFromTheImagesJarSetAndPassItsHealthCheck() throws Exception {
        Path service = RepositoryFiles.root().resolve("service/target");
        Path lib = service.resolve("lib");
        assertThat(lib).as("built by `mvn package` of the service module").isDirectory();
        List<String> jars;
        try (Stream<Path> files = Files.list(lib)) {
            jars = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(jars).anyMatch(j -> j.startsWith("kafka-streams-4")).anyMatch(j -> j.startsWith("log4j-core"))
                .noneMatch(j -> j.startsWith("kafka_2.13") || j.startsWith("kafka-test-common") || j.startsWith("junit")
                        || j.startsWith("kafka-streams-test-utils") || j.startsWith("baton-replay") || j.startsWith("kafka-server-"));
        Path jar;
        try (Stream<Path> files = Files.list(service)) {
            jar = files.filter(p -> p.getFileName().toString().matches("baton-service-.*\\.jar")).findFirst().orElseThrow();
        }
        kafka.kafka().createTopics(1, "baton.session-events");
        // run refuses output topics that cannot hold its largest record (baton.max-output-bytes, 8 MiB)
        kafka.kafka().createTopics(1, Map.of("max.message.bytes", "8388608"), "baton.context-snapshots",
                "baton.dead-letters");
        kafka.kafka().createTopics(1, Map.of("cleanup.policy", "compact"), "baton.tenant-policies");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path log = dir.resolve("run.log");
        ProcessBuilder builder = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", jar + ":" + lib + "/*", "dev.baton.service.command.ServiceCommand", "run",
                "--bootstrap-servers", kafka.bootstrapServers(), "--format", "json")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("BATON_HTTP_PORT", Integer.toString(port));
        builder.environment().put("BATON_STATE_DIR", dir.resolve("state").toString());
        builder.environment().put("BATON_REPLICATION_FACTOR", "1");
        builder.environment().put("BATON_NUM_STANDBY_REPLICAS", "0");
        builder.environment().put("BATON_APPLICATION_ID", "baton-image-it");
        Process process = builder.start();
        try {
            String check = healthCheckCommand();
            // nothing listens yet on a fresh port: the check must say unhealthy
            int closedPort;
            try (ServerSocket socket = new ServerSocket(0)) {
                closedPort = socket.getLocalPort();
            }
            assertThat(healthCheck(check, closedPort)).as("health check against a closed port").isNotZero();
            // once the service is RUNNING (so that SIGTERM finds it started), the image's check passes
            HttpClient http = HttpClient.newHttpClient();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            boolean ready = false;
            while (!ready && System.nanoTime() < deadline) {
                assertThat(process.isAlive()).as("run exited:\n%s", Files.readString(log)).isTrue();
                try {
                    ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                } catch (IOException notYet) {
                    // not listening yet
                }
                Thread.sleep(ready ? 0 : 300);
            }
            assertThat(ready).as("ready:\n%s", Files.readString(log)).isTrue();
            assertThat(Files.readString(log)).as("pid %d", process.pid()).contains("starting");
            assertThat(healthCheck(check, port)).as("the image's HEALTHCHECK against the running service").isZero();
        } finally {
            process.destroy();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(Files.readString(log)).contains("Stopped.");
    }

    private static int healthCheck(String command, int port) throws Exception {
        ProcessBuilder health = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
        health.environment().put("BATON_HTTP_PORT", Integer.toString(port));
        Process p = health.start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    /** The shell command of the Dockerfile's HEALTHCHECK (its exec form: bash -c "..."). */
    private static String healthCheckCommand() throws IOException {
        String healthcheck = DockerfileTest.instructions().stream().filter(i -> i.startsWith("HEALTHCHECK ")).findFirst()
                .orElseThrow();
        Matcher m = Pattern.compile("CMD \\[\"bash\", \"-c\", \"(.*)\"]").matcher(healthcheck);
        assertThat(m.find()).as(healthcheck).isTrue();
        return m.group(1).replace("\\\\", "\\").replace("\\\"", "\"");
    }
}
