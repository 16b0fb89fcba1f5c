package dev.baton.receivers;

import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs one of the consumer kits' command-line tools (node, python3) on a corpus file and streams its standard output
 * line by line (a corpus's requests are far larger than is worth holding). A missing interpreter skips the test, and
 * fails it under CI=true, like {@code ConsumerKitsLogicTest}.
 */
final class KitProcess {
    private KitProcess() {
    }

    /** The interpreter's path, or the test is skipped (failed under CI). */
    static String require(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) return p.toString();
        }
        String why = tool + " is needed to run the kit on the corpus";
        if ("true".equals(System.getenv("CI"))) throw new AssertionError(why + " under CI");
        Assumptions.abort(why);
        return null;
    }

    /** Runs the command in {@code dir}, hands every stdout line to {@code lines}; returns the exit code. */
    static int run(List<String> command, Path dir, Map<String, String> env, Consumer<String> lines)
            throws IOException, InterruptedException {
        Path stderr = Files.createTempFile("baton-kit", ".stderr");
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectError(stderr.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (!line.isBlank()) lines.accept(line);
            }
        }
        int code = p.waitFor();
        String err = Files.readString(stderr, StandardCharsets.UTF_8);
        Files.delete(stderr);
        if (!err.isBlank()) System.err.println(command + ": " + err.strip());
        return code;
    }
}
