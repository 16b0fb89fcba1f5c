package dev.baton.cli;

import dev.baton.service.command.VersionProvider;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import dev.baton.app.ExitCodes;
import dev.baton.replay.importer.ImportReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code baton import}: recorded ATIF trajectories or chat logs → SessionEvent JSONL. */
@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Convert recorded agent trajectories (ATIF) or chat logs into Baton's SessionEvent JSONL.",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Reads ATIF trajectories (Harbor RFC 0001, versions 1.0–1.7: Terminal-Bench/Harbor, OpenHands, "
                    + "mini-SWE-agent, Claude Code exports) or OpenAI-style chat logs, and writes SessionEvent JSON lines "
                    + "that `baton backfill` and the live input topic take as they are. Tool calls and their results "
                    + "become the trails of the agents' turns; ids and names that do not fit Baton's patterns are mapped "
                    + "deterministically and reported, never dropped; a file that cannot be read is reported with its "
                    + "path and the reason, and the rest goes on. The same files always give the same bytes. The mapping "
                    + "is in docs/import.md.",
            "",
            "INPUT is a file, a directory (its .json, .jsonl and .ndjson files, .gz allowed, in path order) or - for "
                    + "stdin. A .jsonl file holds one document per line."
        },
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Examples:",
            "  ./baton import --from atif --tenant acme runs/ -o events.jsonl.gz",
            "  ./baton import --from openai-chat --tenant acme chats.jsonl -o - | head",
            "  ./baton import --from atif --tenant acme runs/ --handoff-last claude-opus -o events.jsonl",
            "  ./baton backfill --from atif --tenant acme runs/ -o snapshots.jsonl --handoff-last claude-opus",
            "",
            "Exit codes: 0 every input converted; 1 failed; 2 wrong command line;",
            "            3 written, but some inputs were rejected (see stderr or --report)."
        })
public final class ImportCommand implements Callable<Integer> {

    @Mixin
    ImportOptions options;

    @Parameters(arity = "1..*", paramLabel = "INPUT", description = "Recorded files or directories; - for stdin.")
    List<Path> inputs;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE",
            description = "Where to write the SessionEvents (JSONL; .gz compressed; - for stdout; replaced if it exists).")
    Path output;

    @Override
    public Integer call() throws Exception {
        ImportReport report = options.run(inputs, output);
        return report.rejected() > 0 ? ExitCodes.INCOMPLETE : ExitCodes.OK;
    }
}
