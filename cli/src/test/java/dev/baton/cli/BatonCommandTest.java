package dev.baton.cli;

import dev.baton.service.command.RunCommand;
import dev.baton.service.command.ConnectionOptions;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

import dev.baton.app.ExitCodes;

import picocli.CommandLine;

class BatonCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = BatonCommand.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void shouldListTheCommandsInTheHelp() {
        assertThat(run("--help")).isEqualTo(ExitCodes.OK);
        assertThat(out.toString()).contains("demo", "backfill", "run", "Exit codes");
    }

    @Test
    void shouldPrintTheVersion() {
        assertThat(run("--version")).isEqualTo(ExitCodes.OK);
        assertThat(out.toString()).startsWith("baton ").contains("Kafka Streams 4.");
    }

    @Test
    void shouldAskForACommandWithExitCode2() {
        assertThat(run()).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("Usage: baton");
    }

    @Test
    void shouldRejectAnUnknownOptionWithExitCode2AndAHint() {
        assertThat(run("backfill", "--input", "in.jsonl", "--output", "out.jsonl", "--frobnicate")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--frobnicate").contains("baton help backfill");
    }

    @Test
    void shouldRequireInputAndOutputForBackfill() {
        assertThat(run("backfill")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--input").contains("--output");
    }

    @Test
    void shouldAcceptTheFormatInAnyCase() {
        CommandLine commandLine = BatonCommand.commandLine();
        CommandLine.ParseResult parsed = commandLine.parseArgs("run", "--format", "JSON", "--http-port", "8080");
        RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
        assertThat(run.connection().format()).isEqualTo(ConnectionOptions.Format.json);
        assertThat(run.httpPort()).isEqualTo(8080);
    }

    @Test
    void shouldDescribeEachCommandInItsOwnHelp() {
        for (String command : new String[] {"demo", "backfill", "run"}) {
            out.getBuffer().setLength(0);
            assertThat(run("help", command)).isEqualTo(ExitCodes.OK);
            assertThat(out.toString()).as(command).contains("Usage: baton " + command).contains("Examples:");
        }
    }
}
