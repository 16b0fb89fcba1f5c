package dev.baton.cli;

import dev.baton.service.command.VersionProvider;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import dev.baton.replay.DemoRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code baton demo}: the bundled sample sessions through the real topology, all in this process. */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Run a sample of agent sessions through Baton and print the snapshots.",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Starts a Kafka broker and an in-memory schema registry inside this process, produces a "
                    + "bundled sample of sessions (an escalation from a local model to Claude with tool evidence, "
                    + "a session owned from the start, legacy tool calls, a long session trimmed to a small "
                    + "budget, a CLAUDE_CLI hand-off, a duplicate and a bad record) as Avro, runs the real "
                    + "topology and prints every snapshot: framing, brick, transcript and markers. Nothing to "
                    + "install and nothing left running afterwards; takes about half a minute."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Examples:",
            "  ./baton demo",
            "  ./baton demo --jsonl > snapshots.jsonl      the raw ContextSnapshot records",
            "  ./baton demo --input my-sessions.jsonl      your own sessions instead of the sample"
        })
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--jsonl", description = "Print the snapshots as JSON Lines instead of a readable view.")
    boolean jsonl;

    @Option(names = {"-i", "--input"}, paramLabel = "FILE",
            description = "Sessions to use instead of the bundled sample (JSONL, .gz allowed).")
    Path input;

    @Override
    public Integer call() throws Exception {
        return new DemoRunner(input, jsonl).run();
    }
}
