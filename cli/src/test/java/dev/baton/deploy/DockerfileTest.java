package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The Dockerfile, read (no Docker engine here): every step fails the build when it fails, the image
 * runs as a non-root user with a health check, and it starts the service module's entry point from
 * the service module's jars. DockerImageIT runs that jar set and the health check itself.
 */
class DockerfileTest {

    static final Path ROOT = RepositoryFiles.root();

    static String dockerfile() throws IOException {
        return Files.readString(ROOT.resolve("Dockerfile"));
    }

    /** The instructions, continuation lines joined, comments dropped. */
    static List<String> instructions() throws IOException {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : dockerfile().split("\n")) {
            if (line.strip().startsWith("#")) {
                continue;
            }
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            current.append(line);
            if (!current.toString().isBlank()) {
                out.add(current.toString().strip());
            }
            current.setLength(0);
        }
        return out;
    }

    @Test
    void shouldFailTheBuildWhenAStepFails() throws IOException {
        for (String run : instructions().stream().filter(i -> i.startsWith("RUN ")).toList()) {
            assertThat(run).as(run).doesNotContainPattern("\\|\\|\\s*true").doesNotContainPattern("\\|\\|\\s*:")
                    .doesNotContain("; exit 0");
            if (run.contains(";")) {
                assertThat(run).as("a multi-command RUN stops at the first failure").contains("set -eu");
            }
        }
    }

    @Test
    void shouldRunAsNonRootWithAHealthCheck() throws IOException {
        List<String> instructions = instructions();
        List<String> users = instructions.stream().filter(i -> i.startsWith("USER ")).toList();
        assertThat(users).isNotEmpty();
        String user = users.get(users.size() - 1).substring(5).strip();
        assertThat(user).matches("[1-9][0-9]*(:[1-9][0-9]*)?");
        // the same uid as the Kubernetes pod's runAsUser
        assertThat(Files.readString(ROOT.resolve("deploy/base/statefulset.yaml"))).contains("runAsUser: " + user.split(":")[0]);
        String healthcheck = instructions.stream().filter(i -> i.startsWith("HEALTHCHECK ")).findFirst().orElseThrow();
        assertThat(healthcheck).contains("/healthz").contains("--timeout=");
    }

    @Test
    void shouldStartTheServiceEntryPointFromTheServiceJarsOnly() throws Exception {
        String file = dockerfile();
        Matcher entry = Pattern.compile("ENTRYPOINT \\[\"java\", \"-cp\", \"([^\"]+)\", \"([^\"]+)\"]").matcher(file);
        assertThat(entry.find()).isTrue();
        assertThat(entry.group(1)).isEqualTo("/app/baton-service.jar:/app/lib/*");
        Class<?> main = Class.forName(entry.group(2));
        // the class is the service module's, not the command line's (which brings the in-process broker)
        assertThat(main.getProtectionDomain().getCodeSource().getLocation().getPath()).contains("/service/target/");
        assertThat(main.getMethod("main", String[].class)).isNotNull();
        assertThat(file).contains("mvn -B -q -DskipTests package -pl service -am")
                .contains("cp service/target/baton-service-*.jar /out/app/baton-service.jar")
                .contains("cp -r service/target/lib /out/app/lib")
                .doesNotContain("cli/target").doesNotContain("replay/target");
        // the modules the build needs are copied, and the ones it does not build only as POMs
        for (String module : List.of("schemas", "engine", "processors", "topology", "service")) {
            assertThat(file).contains("COPY " + module + " " + module);
        }
    }
}
