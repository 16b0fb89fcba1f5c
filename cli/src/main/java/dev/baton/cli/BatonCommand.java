package dev.baton.cli;

import dev.baton.service.command.RunCommand;
import dev.baton.service.command.VersionProvider;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code baton} command line: {@code demo}, {@code backfill}, {@code import}, {@code run}, {@code verify},
 * {@code topics}, {@code reset}, and the data commands {@code tail}, {@code produce}, {@code policy} and
 * {@code dead-letters}.
 * Started by the {@code ./baton} launcher at the repository root.
 */
@Command(
        name = "baton",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        headerHeading = "%n",
        header = "Baton: escalation-ready context snapshots for AI-agent hand-offs, on Kafka Streams.",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Baton reads the events of agent sessions (turns, tool activity, hand-offs) and, on every "
                    + "hand-off, writes a ContextSnapshot: the transcript the receiving agent needs to carry on "
                    + "as the owner of the work, plus a short orientation brick. Summary as index, transcript as "
                    + "ground truth."
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%n",
        footer = {
            "Start here:",
            "  ./baton demo                     sample sessions through the real pipeline, in-process",
            "  ./baton backfill -i in.jsonl -o out.jsonl",
            "  ./baton import --from atif --tenant acme runs/ -o events.jsonl",
            "  ./baton run --bootstrap-servers kafka:9092 --schema-registry-url http://registry:8081",
            "  ./baton topics --bootstrap-servers kafka:9092 --dry-run",
            "  ./baton tail --config baton.properties --from-beginning      show the snapshots topic",
            "  ./baton produce --config baton.properties events.jsonl      feed the input topic",
            "  ./baton policy list --config baton.properties               tenant policies",
            "  ./baton dead-letters --config baton.properties --summary    rejected records",
            "  ./baton verify out.jsonl         recompute the content hashes of a snapshot file",
            "",
            "Run `baton help COMMAND` for the options of a command.",
            "",
            "Exit codes: 0 done, 1 failed, 2 wrong command line, 3 backfill incomplete, 4 verify mismatch,",
            "            130 interrupted."
        },
        subcommands = {
            DemoCommand.class,
            BackfillCommand.class,
            ImportCommand.class,
            RunCommand.class,
            dev.baton.service.ops.TopicsCommand.class,
            dev.baton.service.ops.ResetCommand.class,
            TailCommand.class,
            ProduceCommand.class,
            PolicyCommand.class,
            DeadLettersCommand.class,
            VerifyCommand.class,
            ViewCommand.class,
            CommandLine.HelpCommand.class
        })
public final class BatonCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit code (for tests and {@link #main}). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /** The configured picocli command line. */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new BatonCommand());
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setExitCodeExceptionMapper(e -> e instanceof AppFailure cli ? cli.exitCode() : ExitCodes.FAILED);
        commandLine.setExecutionExceptionHandler(BatonCommand::handleFailure);
        commandLine.setParameterExceptionHandler((e, args) -> {
            PrintWriter err = e.getCommandLine().getErr();
            err.println("baton: " + e.getMessage());
            String name = commandName(e.getCommandLine());
            err.println(name.isEmpty() ? "Try `baton --help`." : "Try `baton help " + name + "` for its options.");
            return ExitCodes.USAGE;
        });
        return commandLine;
    }

    /** {@code baton} alone: the overview, and exit code 2 (a command is needed). */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    private static int handleFailure(Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        if (e instanceof AppFailure cli) {
            err.println("baton: " + cli.getMessage());
            if (debug() && cli.getCause() != null) {
                cli.getCause().printStackTrace(err);
            }
            err.flush();
            return cli.exitCode();
        }
        err.println("baton: " + commandName(commandLine) + " failed: " + describe(e));
        if (debug()) {
            e.printStackTrace(err);
        } else {
            err.println("(set BATON_DEBUG=1 for the stack trace)");
        }
        err.flush();
        return ExitCodes.FAILED;
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    private static String commandName(CommandLine commandLine) {
        String name = commandLine.getCommandName();
        return name.equals("baton") ? "" : name;
    }

    static boolean debug() {
        String value = System.getenv("BATON_DEBUG");
        return value != null && !value.isBlank() && !value.equals("0") && !value.equalsIgnoreCase("false");
    }
}
