package dev.baton.cli;

import dev.baton.app.ExitCodes;
import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.HandoffReceipt;
import dev.baton.service.command.VersionProvider;
import dev.baton.egress.SnapshotHash;
import dev.baton.replay.Jsonl;
import dev.baton.serde.AvroJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
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
                    + "summary. Blank lines are skipped.",
            "",
            "With --receipts, also reads HandoffReceipts (one JSON object per line, as sent to "
                    + "baton.handoff-receipts) and checks each one against the snapshots of FILE: its snapshot_id "
                    + "must be there and its content_sha256 must be that snapshot's hash. Prints one line per "
                    + "receipt that does not match (RECEIPT_HASH_MISMATCH), names a snapshot the file does not hold "
                    + "(UNKNOWN_SNAPSHOT) or cannot be read."
        },
        footerHeading = "%n",
        footer = {
            "Files ending in .gz are read gzip-compressed; - means stdin.",
            "",
            "Examples:",
            "  ./baton verify snapshots.jsonl",
            "  ./baton demo --jsonl | ./baton verify -",
            "  ./baton verify snapshots.jsonl --receipts receipts.jsonl",
            "",
            "Exit codes: 0 every snapshot matches its hash (and every receipt its snapshot); 4 at least one",
            "            does not (or has none, or cannot be read); 1 a file cannot be read; 2 wrong command line."
        })
public final class VerifyCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "FILE", description = "Snapshots, one JSON object per line.")
    Path file;

    @Option(names = "--receipts", paramLabel = "RECEIPTS",
            description = "HandoffReceipts, one JSON object per line, to check against the snapshots of FILE.")
    Path receipts;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        long matched = 0, mismatched = 0, missing = 0, unreadable = 0;
        // each snapshot's hash as recomputed from its content: what a receipt must name
        Map<String, String> hashes = new HashMap<>();
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
                hashes.put(snapshot.getSnapshotId(), actual);
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
        if (receipts != null) bad += verifyReceipts(out, hashes);
        out.flush();
        return bad == 0 ? ExitCodes.OK : ExitCodes.MISMATCH;
    }

    /** Checks every receipt of {@link #receipts} against the snapshots' hashes; returns how many failed. */
    private long verifyReceipts(PrintWriter out, Map<String, String> hashes) throws IOException {
        long matched = 0, mismatched = 0, unknown = 0, unreadable = 0;
        try (Jsonl.Reader reader = Jsonl.reader(receipts)) {
            byte[] line;
            while ((line = reader.next()) != null) {
                if (Jsonl.isBlank(line)) continue;
                long n = reader.lineNumber();
                HandoffReceipt receipt;
                try {
                    receipt = AvroJson.read(line, HandoffReceipt.class);
                } catch (RuntimeException e) {
                    unreadable++;
                    out.println("receipt line " + n + ": cannot be read as a HandoffReceipt: " + e.getMessage());
                    continue;
                }
                String hash = hashes.get(receipt.getSnapshotId());
                if (hash == null) {
                    unknown++;
                    out.println("receipt line " + n + " (" + receipt.getSnapshotId() + "): UNKNOWN_SNAPSHOT, "
                            + "no such snapshot in " + file);
                } else if (!hash.equals(receipt.getContentSha256())) {
                    mismatched++;
                    out.println("receipt line " + n + " (" + receipt.getSnapshotId() + "): RECEIPT_HASH_MISMATCH, "
                            + "content_sha256 " + receipt.getContentSha256() + " is not the snapshot's " + hash);
                } else {
                    matched++;
                }
            }
        }
        long bad = mismatched + unknown + unreadable;
        out.println((matched + bad) + " receipts: " + matched + " match, " + mismatched + " do not match, "
                + unknown + " for unknown snapshots, " + unreadable + " unreadable");
        return bad;
    }
}
