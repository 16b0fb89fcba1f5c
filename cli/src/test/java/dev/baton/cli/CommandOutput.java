package dev.baton.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/** Runs the command line in this JVM with stdout and stderr captured. */
record CommandOutput(int exitCode, String out, String err) {

    static CommandOutput run(String... args) {
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = BatonCommand.execute(args);
        } finally {
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
        return new CommandOutput(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    List<String> outLines() {
        return out.lines().toList();
    }

    /** Live non-daemon threads that belong to Kafka, Streams or Baton (what a finished command must not leave). */
    static List<String> lingeringThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !t.isDaemon() && !before.contains(t))
                .map(Thread::getName)
                .filter(n -> !n.startsWith("main") && !n.contains("junit"))
                .toList();
    }
}
