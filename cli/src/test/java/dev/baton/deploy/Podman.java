package dev.baton.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * Debian's podman, run as root, for the container tests. There is no Docker engine here; podman builds and runs the
 * same images. Two settings these machines need are written to a containers.conf of its own (passed as
 * {@code CONTAINERS_CONF}, so the machine's configuration is left alone): no default ulimits (setting them is refused
 * here) and the runc runtime (crun refuses the hybrid cgroup hierarchy some machines have).
 *
 * <p>When podman, mmdebstrap or kubectl is missing, or the test does not run as root, the tests are skipped, except
 * under {@code CI=true}, where they fail: .ci/run installs what they need.
 */
final class Podman {

    private static final String CONF = """
            # written by the container tests (dev.baton.deploy.Podman)
            [containers]
            default_ulimits = []

            [engine]
            runtime = "runc"
            """;

    private final Path conf;
    private final Path logs;

    private Podman(Path workDir) throws IOException {
        Files.createDirectories(workDir);
        this.conf = workDir.resolve("containers.conf");
        this.logs = workDir;
        Files.writeString(conf, CONF);
    }

    /** A podman whose configuration and command logs go to {@code workDir}; skips or fails when it cannot run. */
    static Podman require(Path workDir) throws IOException {
        List<String> missing = new ArrayList<>();
        for (String tool : List.of("podman", "runc", "mmdebstrap", "kubectl")) {
            if (!onPath(tool)) {
                missing.add(tool);
            }
        }
        if (!missing.isEmpty()) {
            unavailable("not installed: " + String.join(", ", missing) + " (apt-get install podman runc mmdebstrap)");
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            unavailable("the container tests run podman and mmdebstrap as root; this is " + System.getProperty("user.name"));
        }
        return new Podman(workDir);
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool));
    }

    private static void unavailable(String why) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError("the container test cannot run, and CI=true: " + why);
        }
        Assumptions.abort(why + " (skipping; under CI=true this fails)");
    }

    /** What a command printed (stdout and stderr together) and how it exited. */
    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }

        /** The last {@code lines} lines, for failure messages. */
        String tail(int lines) {
            List<String> all = output.lines().toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
    }

    /** {@code podman ARGS}, waited for up to {@code timeout}; its output is also kept in {@code logName}. */
    Result run(Duration timeout, String logName, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add("podman");
        command.addAll(args);
        return exec(timeout, logName, command, null);
    }

    /** {@code podman ARGS} that must succeed; returns its output, trimmed. */
    String ok(List<String> args) {
        Result r = run(Duration.ofMinutes(2), null, args);
        if (!r.ok()) {
            throw new AssertionError("podman " + String.join(" ", args) + " exited " + r.exitCode() + ":\n" + r.tail(40));
        }
        return r.output().strip();
    }

    /** Any command, with this podman's configuration in its environment, stdin from {@code stdin} when not null. */
    Result exec(Duration timeout, String logName, List<String> command, Path stdin) {
        Path log = logs.resolve(logName == null ? "last-command.log" : logName);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("CONTAINERS_CONF", conf.toString());
        if (stdin != null) {
            builder.redirectInput(stdin.toFile());
        }
        try {
            Process p = builder.start();
            if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout + "; log " + log);
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + String.join(" ", command), e);
        }
    }

    /** Removes a container if it exists (force, no grace period); never fails. */
    void removeQuietly(String container) {
        run(Duration.ofMinutes(1), null, List.of("rm", "--force", "--time", "0", "--ignore", container));
    }
}
