package dev.baton.cli;

import dev.baton.app.ExitCodes;
import dev.baton.avro.ContextSnapshot;
import dev.baton.service.command.VersionProvider;
import dev.baton.egress.SnapshotHash;
import dev.baton.replay.Jsonl;
import dev.baton.serde.AvroJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code baton verify FILE}: recompute the content hash of every snapshot of a JSONL file. */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        usageHelpWidth = 100,
        sortOptions = false,
        header = "Recompute the content hashes of a file of snapshots and report every mismatch.",
        synopsisHeading = "%nUsage: ",
        descriptionHeading = "%n",
        description = {
            "Reads ContextSnapshots, one JSON object per line (the output of backfill or demo --jsonl, or "
                    + "records consumed from the snapshots topic in the JSON format), recomputes the SHA-256 of "
                    + "each one's canonical form (docs/audit.md) and compares it with its content_sha256. Prints "
                    + "one line per snapshot that does not match, cannot be read or carries no hash, then a "
                    + "summary. Blank lines are skipped."
        },
        footerHeading = "%n",
        footer = {
            "Files ending in .gz are read gzip-compressed; - means stdin.",
            "",
            "Examples:",
            "  ./baton verify snapshots.jsonl",
            "  ./baton demo --jsonl | ./baton verify -",
            "",
            "Exit codes: 0 every snapshot matches its hash; 4 at least one does not (or has none, or cannot be",
            "            read); 1 the file cannot be read; 2 wrong command line."
        })
public final class VerifyCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "FILE", description = "Snapshots, one JSON object per line.")
    Path file;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        long matched = 0, mismatched = 0, missing = 0, unreadable = 0;
        try (Jsonl.Reader reader = Jsonl.reader(file)) {
            byte[] line;
            while ((line = reader.next()) != null) {
                if (Jsonl.isBlank(line)) continue;
                long n = reader.lineNumber();
                ContextSnapshot snapshot;
                try {
                    snapshot = AvroJson.read(line, ContextSnapshot.class);
                } catch (RuntimeException e) {
                    unreadable++;
                    out.println("line " + n + ": cannot be read as a ContextSnapshot: " + e.getMessage());
                    continue;
                }
                String stored = snapshot.getContentSha256();
                if (stored == null) {
                    missing++;
                    out.println("line " + n + " (" + snapshot.getSnapshotId() + "): no content_sha256");
                    continue;
                }
                String actual = SnapshotHash.of(snapshot);
                if (actual.equals(stored)) {
                    matched++;
                } else {
                    mismatched++;
                    out.println("line " + n + " (" + snapshot.getSnapshotId() + "): content_sha256 " + stored
                            + " does not match the content, whose hash is " + actual);
                }
            }
        }
        long bad = mismatched + missing + unreadable;
        out.println((matched + bad) + " snapshots: " + matched + " match, " + mismatched + " do not match, "
                + missing + " without hash, " + unreadable + " unreadable");
        out.flush();
        return bad == 0 ? ExitCodes.OK : ExitCodes.MISMATCH;
    }
}
