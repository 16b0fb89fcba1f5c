package dev.baton.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The consumer kits' own unit tests (examples/consumers: python/test_kit.py with unittest; node/kit.test.js,
 * dialects.test.js, templates.test.js and sdk.test.js with {@code node --test}: the last three need the kit's npm
 * packages, and templates.test.js the shared templates in ../shared, skipped when missing outside CI) run by Maven: the mapping of both snapshot forms (against the same files as
 * {@link SnapshotPromptsTest}), dedupe, the dead-letter file and the settings. They need python3 or node, no
 * package; a missing interpreter skips its test, and fails it under CI=true.
 */
class ConsumerKitsLogicTest {

    private static final Path KITS = Paths.get("..", "examples", "consumers").toAbsolutePath().normalize();

    @Test
    void shouldPassThePythonKitsUnitTests() throws Exception {
        run(List.of("/usr/bin/python3", "-m", "unittest", "discover", "-s", ".", "-p", "test_*.py"), KITS.resolve("python"),
                "/usr/bin/python3");
    }

    @Test
    void shouldPassTheNodeKitsUnitTests() throws Exception {
        run(List.of("node", "--test", "kit.test.js", "dialects.test.js", "templates.test.js", "sdk.test.js"),
            KITS.resolve("node"), "node");
    }

    private static void run(List<String> command, Path dir, String tool) throws Exception {
        Process p;
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
            builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
            p = builder.start();
        } catch (IOException missing) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError(tool + " is needed to run the kit's tests under CI", missing);
            }
            Assumptions.abort(tool + " not installed: " + missing.getMessage());
            return;
        }
        p.getOutputStream().close();
        byte[] output = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s in %s:%n%s", command, dir, new String(output, StandardCharsets.UTF_8)).isZero();
    }
}
