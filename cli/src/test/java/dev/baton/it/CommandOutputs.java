package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import dev.baton.cli.BatonCommand;

/** Runs a {@code baton} command in this JVM and fails with its stderr when it does not exit 0. */
final class CommandOutputs {

    private CommandOutputs() {
    }

    static void run(String... args) {
        PrintStream originalErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = BatonCommand.execute(args);
        } finally {
            System.setErr(originalErr);
        }
        assertThat(code).as("baton %s: %s", String.join(" ", args), err.toString(StandardCharsets.UTF_8)).isZero();
    }
}
