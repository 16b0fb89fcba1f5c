package dev.baton.service.command;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.service.ops.ResetCommand;
import dev.baton.service.ops.TopicsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The container image's entry point: {@code baton run}, and the operations commands {@code topics} and
 * {@code reset} (for Kubernetes Jobs), from the service module's runtime class path (no in-process broker, no demo
 * or backfill). Same options, environment and exit codes as {@code ./baton}.
 */
@Command(
        name = "baton",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        header = "Baton service image: `run`, `topics`, `reset` (see `COMMAND --help`).",
        subcommands = {RunCommand.class, TopicsCommand.class, ResetCommand.class, CommandLine.HelpCommand.class})
public final class ServiceCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    public static int execute(String... args) {
        CommandLine commandLine = new CommandLine(new ServiceCommand());
        commandLine.setExitCodeExceptionMapper(e -> e instanceof AppFailure f ? f.exitCode() : ExitCodes.FAILED);
        commandLine.setExecutionExceptionHandler((e, cl, parsed) -> {
            PrintWriter err = cl.getErr();
            err.println("baton: " + (e instanceof AppFailure ? e.getMessage() : cl.getCommandName() + " failed: " + e));
            err.flush();
            return e instanceof AppFailure f ? f.exitCode() : ExitCodes.FAILED;
        });
        commandLine.setParameterExceptionHandler((e, a) -> {
            e.getCommandLine().getErr().println("baton: " + e.getMessage());
            return ExitCodes.USAGE;
        });
        return commandLine.execute(args);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }
}
