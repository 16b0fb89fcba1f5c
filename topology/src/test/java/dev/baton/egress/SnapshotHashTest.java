package dev.baton.egress;

import dev.baton.engine.model.Target;
import dev.baton.engine.snapshot.Framing;
import dev.baton.engine.snapshot.FramingKind;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Parity;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.Retention;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Stats;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The worked example of docs/audit.md: its canonical text, written by hand from the rules, and its hash. */
class SnapshotHashTest {
    static final String CANONICAL = "{\"as_of_seq\":0,\"brick\":\"Session acme/s1\",\"framing\":{\"kind\":\"OWNER_FROM_START\","
            + "\"system_prompt\":\"You are qwen.\"},\"handoff_id\":\"h1\",\"messages\":[{\"content\":\"fix \\\"it\\\"\\n\","
            + "\"role\":\"user\",\"tool_calls\":[]}],\"occurred_at\":1767225600000,\"parity\":{\"covered_items\":0,"
            + "\"reference_agent\":\"qwen\",\"reference_items\":0},\"provenance\":{\"first_line\":1,\"last_line\":2},"
            + "\"retention\":{\"expanded_seqs\":[],\"inlined_seqs\":[],\"manifest_seqs\":[],\"manifest_unlisted\":0,"
            + "\"trail_bytes\":0},\"session_id\":\"s1\",\"snapshot_id\":\"acme/s1/h1\",\"stats\":{\"brick_chars\":15,"
            + "\"estimated_tokens\":10,\"message_chars\":9},\"target\":\"LOCAL\",\"tenant_id\":\"acme\","
            + "\"to_agent\":\"qwen\",\"truncations\":[],\"turn_count\":1}";
    static final String HASH = "29aec4bb5ee0ce6a9e5ed0490cb837761222fe7f2ec2efb50ef9065645b3de96";

    static Snapshot example() {
        return new Snapshot("acme/s1/h1", "acme", "s1", "h1", null, "qwen", Target.LOCAL, 0, 1,
                Instant.parse("2026-01-01T00:00:00Z").toEpochMilli(),
                new Framing(FramingKind.OWNER_FROM_START, "You are qwen."), "Session acme/s1",
                List.of(Message.user("fix \"it\"\n")), new Retention(List.of(), List.of(), List.of(), 0, 0), List.of(),
                new Stats(9, 15, 10), new Parity("qwen", 0, 0), new InputRange(null, null, null, null, 1L, 2L));
    }

    @Test
    void shouldWriteTheWorkedExampleOfTheDocs() throws IOException {
        var record = SnapshotEncoder.toAvro(example());
        assertThat(new String(SnapshotHash.canonical(record), StandardCharsets.UTF_8)).isEqualTo(CANONICAL);
        assertThat(record.getContentSha256()).isEqualTo(HASH);
        String doc = Files.readString(Path.of("..", "docs", "audit.md"));
        assertThat(doc.replace("\n", "")).contains(CANONICAL).contains(HASH);
    }

    @Test
    void shouldNotDependOnTheHashFieldItself() {
        var record = SnapshotEncoder.toAvro(example());
        record.setContentSha256("0".repeat(64));
        assertThat(SnapshotHash.of(record)).isEqualTo(HASH);
    }
}
