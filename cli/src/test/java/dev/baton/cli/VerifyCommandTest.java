package dev.baton.cli;

import dev.baton.app.ExitCodes;
import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

class VerifyCommandTest {

    /** Three real snapshots of one session, as JSON lines (what backfill writes). */
    private static List<String> lines() {
        Policy policy = Policy.defaults();
        SessionState state = SessionState.empty();
        List<String> out = new ArrayList<>();
        state.offerTurn(new Turn(0, "user", Role.USER, "fix the \"build\"\nplease", List.of(), List.of(), null, null,
                null), policy, 0L);
        for (int i = 1; i <= 3; i++) {
            state.offerTurn(new Turn(i, i % 2 == 0 ? "user" : "qwen", i % 2 == 0 ? Role.USER : Role.ASSISTANT,
                    "turn " + i + " ✓", List.of(), List.of(), null, null, null), policy, 0L);
            Handoff h = new Handoff("h" + i, "qwen", "opus", Target.LOCAL, null, null, null);
            var snapshot = ContextEngine.render("acme", "s1", state, new ReadyHandoff(h, 1_000L * i, null), policy)
                    .withProvenance(new InputRange(null, null, null, null, 1L, 1L + i));
            out.add(SnapshotEncoder.toJsonLine(snapshot));
        }
        return out;
    }

    @Test
    void shouldAcceptAnUntouchedFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("snapshots.jsonl");
        Files.writeString(file, String.join("\n", lines()) + "\n\n");

        CommandOutput r = CommandOutput.run("verify", file.toString());

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("3 snapshots: 3 match, 0 do not match, 0 without hash, 0 unreadable");
    }

    @Test
    void shouldReportATamperedLineAndExitNonZero(@TempDir Path dir) throws IOException {
        List<String> lines = new ArrayList<>(lines());
        String tampered = lines.get(1).replace("turn 2 ✓", "turn 2 ✗");
        assertThat(tampered).isNotEqualTo(lines.get(1));
        lines.set(1, tampered);
        lines.set(2, lines.get(2).replace("\"last_line\":4", "\"last_line\":5")); // provenance is covered too
        Path file = dir.resolve("snapshots.jsonl.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        }

        CommandOutput r = CommandOutput.run("verify", file.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.MISMATCH);
        assertThat(r.out()).contains("line 2 (acme/s1/h2): content_sha256 ")
                .contains("line 3 (acme/s1/h3): content_sha256 ")
                .doesNotContain("line 1 (")
                .contains("3 snapshots: 1 match, 2 do not match");
    }

    @Test
    void shouldReportLinesWithoutHashOrThatCannotBeRead(@TempDir Path dir) throws IOException {
        List<String> lines = new ArrayList<>(lines());
        lines.set(0, lines.get(0).replaceAll(",\"content_sha256\":\"[0-9a-f]{64}\"", ""));
        lines.add("{not json");
        Path file = dir.resolve("snapshots.jsonl");
        Files.writeString(file, String.join("\n", lines) + "\n");

        CommandOutput r = CommandOutput.run("verify", file.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.MISMATCH);
        assertThat(r.out()).contains("line 1 (acme/s1/h1): no content_sha256")
                .contains("line 4: cannot be read")
                .contains("4 snapshots: 2 match, 0 do not match, 1 without hash, 1 unreadable");
    }

    @Test
    void shouldCheckReceiptsAgainstTheSnapshotsOfTheFile(@TempDir Path dir) throws IOException {
        List<String> lines = lines();
        Path file = dir.resolve("snapshots.jsonl");
        Files.writeString(file, String.join("\n", lines) + "\n");
        String sha1 = com.fasterxml.jackson.databind.json.JsonMapper.builder().build().readTree(lines.get(0))
                .get("content_sha256").asText();
        String good = "{\"snapshot_id\":\"acme/s1/h1\",\"content_sha256\":\"" + sha1
                + "\",\"started_at\":\"2026-12-03T10:00:00Z\",\"outcome\":\"RESOLVED\",\"tokens_spent\":5}";
        String wrongHash = "{\"snapshot_id\":\"acme/s1/h2\",\"content_sha256\":\"" + sha1
                + "\",\"started_at\":\"2026-12-03T10:00:00Z\"}";
        String unknown = "{\"snapshot_id\":\"acme/s1/h9\",\"content_sha256\":\"" + sha1
                + "\",\"started_at\":\"2026-12-03T10:00:00Z\"}";
        Path receipts = dir.resolve("receipts.jsonl");
        Files.writeString(receipts, good + "\n");

        CommandOutput ok = CommandOutput.run("verify", file.toString(), "--receipts", receipts.toString());
        assertThat(ok.exitCode()).as(ok.out() + ok.err()).isEqualTo(ExitCodes.OK);
        assertThat(ok.out()).contains("1 receipts: 1 match, 0 do not match, 0 for unknown snapshots, 0 unreadable");

        Files.writeString(receipts, String.join("\n", good, wrongHash, unknown, "{not json") + "\n");
        CommandOutput r = CommandOutput.run("verify", file.toString(), "--receipts", receipts.toString());
        assertThat(r.exitCode()).isEqualTo(ExitCodes.MISMATCH);
        assertThat(r.out()).contains("receipt line 2 (acme/s1/h2): RECEIPT_HASH_MISMATCH")
                .contains("receipt line 3 (acme/s1/h9): UNKNOWN_SNAPSHOT")
                .contains("receipt line 4: cannot be read")
                .contains("4 receipts: 1 match, 1 do not match, 1 for unknown snapshots, 1 unreadable");
    }
}
