package dev.baton.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.app.AppFailure;
import dev.baton.engine.model.Identifiers;

/** Synthetic hand-off triggers and sampling: which hand-offs, with which ids, always the same. */
class HandoffTriggersTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static HandoffTriggers.Turn turn(long seq, String role, boolean error) {
        return new HandoffTriggers.Turn("t1", "s1", "2026-11-30T09:00:00Z", seq, "qwen-coder", role, error);
    }

    @Test
    void shouldAddAHandoffAfterEveryNthTurnAndAfterEveryErrorWithValidReservedIds() throws IOException {
        HandoffTriggers triggers = HandoffTriggers.parse(List.of("every:3", "error"), "claude-opus", "local");
        List<String> ids = new ArrayList<>();
        for (long seq = 0; seq < 7; seq++) {
            for (byte[] h : triggers.after(turn(seq, "ASSISTANT", seq == 4))) {
                JsonNode e = JSON.readTree(h);
                ids.add(e.at("/handoff/handoff_id").asText());
                assertThat(e.at("/handoff/as_of_seq").asLong()).isEqualTo(seq);
                assertThat(e.at("/handoff/to_agent").asText()).isEqualTo("claude-opus");
                assertThat(e.at("/handoff/target").asText()).isEqualTo("LOCAL");
                assertThat(e.at("/handoff/from_agent").asText()).isEqualTo("qwen-coder");
                assertThat(e.get("occurred_at").asText()).isEqualTo("2026-11-30T09:00:00Z");
            }
        }
        assertThat(ids).containsExactly("baton-synthetic:every:2", "baton-synthetic:error:4",
            "baton-synthetic:every:5");
        assertThat(ids).allMatch(Identifiers::isValidId).allMatch(HandoffTriggers::reserved);
    }

    @Test
    void shouldGiveTheSameBytesForTheSameTurn() throws IOException {
        HandoffTriggers a = HandoffTriggers.parse(List.of("every:1", "error"), "claude-opus", "CLAUDE_CLI");
        HandoffTriggers b = HandoffTriggers.parse(List.of("every:1", "error"), "claude-opus", "CLAUDE_CLI");
        List<byte[]> first = a.after(turn(9, "TOOL", true));
        List<byte[]> second = b.after(turn(9, "TOOL", true));
        assertThat(first).hasSize(2);
        for (int i = 0; i < first.size(); i++) {
            assertThat(first.get(i)).isEqualTo(second.get(i));
        }
    }

    @Test
    void shouldNameNoPreviousOwnerAfterAUserTurn() throws IOException {
        HandoffTriggers triggers = HandoffTriggers.parse(List.of("every:1"), "claude-opus", null);
        JsonNode e = JSON.readTree(triggers.after(turn(0, "USER", false)).get(0));
        assertThat(e.at("/handoff").has("from_agent")).isFalse();
    }

    @Test
    void shouldNameNoPreviousOwnerAfterTheReceiversOwnTurn() throws IOException {
        // docs/decisions.md: an agent does not hand off to itself; a null from_agent keeps R7's owner framing
        HandoffTriggers triggers = HandoffTriggers.parse(List.of("every:1"), "qwen-coder", null);
        JsonNode own = JSON.readTree(triggers.after(turn(3, "ASSISTANT", false)).get(0));
        assertThat(own.at("/handoff").has("from_agent")).isFalse();
        JsonNode last = JSON.readTree(triggers.lastOf("t1", "s1", "2026-11-30T09:00:00Z", "qwen-coder"));
        assertThat(last.at("/handoff").has("from_agent")).isFalse();
        HandoffTriggers other = HandoffTriggers.parse(List.of("every:1"), "claude-opus", null);
        JsonNode handed = JSON.readTree(other.after(turn(3, "ASSISTANT", false)).get(0));
        assertThat(handed.at("/handoff/from_agent").asText()).isEqualTo("qwen-coder");
    }

    @Test
    void shouldReadASeqsFileWithItsOwnAgentsAndTargets() throws IOException {
        Path seqs = dir.resolve("seqs.tsv");
        Files.writeString(seqs, "# tenant session seq to_agent target\nt1\ts1\t3\tclaude-opus\tCLAUDE_CLI\n"
            + "t1,s1,3,reviewer\nt1 s2 0\n", StandardCharsets.UTF_8);
        HandoffTriggers triggers = HandoffTriggers.parse(List.of("seqs:" + seqs), "senior", null);
        List<String> ids = new ArrayList<>();
        for (byte[] h : triggers.after(turn(3, "ASSISTANT", false))) {
            ids.add(JSON.readTree(h).at("/handoff/handoff_id").asText());
        }
        assertThat(ids).containsExactly("baton-synthetic:seqs:3:claude-opus:CLAUDE_CLI",
            "baton-synthetic:seqs:3:reviewer:LOCAL");
        assertThat(triggers.after(turn(2, "ASSISTANT", false))).isEmpty();
    }

    @Test
    void shouldRefuseSpecsItCannotUse() {
        assertThatThrownBy(() -> HandoffTriggers.parse(List.of("every:0"), "a", null)).isInstanceOf(AppFailure.class);
        assertThatThrownBy(() -> HandoffTriggers.parse(List.of("sometimes"), "a", null))
            .isInstanceOf(AppFailure.class);
        assertThatThrownBy(() -> HandoffTriggers.parse(List.of("error"), null, null))
            .isInstanceOf(AppFailure.class).hasMessageContaining("--handoff-to");
        assertThatThrownBy(() -> HandoffTriggers.parse(List.of("error"), "Claude Opus", null))
            .isInstanceOf(AppFailure.class);
        assertThatThrownBy(() -> HandoffTriggers.parse(List.of("error"), "a", "REMOTE"))
            .isInstanceOf(AppFailure.class);
    }

    @Test
    void shouldSampleSessionsByAHashOfTheKeyAlone() {
        int in = 0;
        for (int i = 0; i < 10_000; i++) {
            String key = "tenant/s-" + i;
            boolean sampled = HandoffTriggers.sampled(key, 0.1);
            assertThat(HandoffTriggers.sampled(key, 0.1)).isEqualTo(sampled);
            if (sampled) {
                in++;
                assertThat(HandoffTriggers.sampled(key, 0.2)).as("a larger sample contains a smaller one").isTrue();
            }
        }
        assertThat(in).isBetween(900, 1100);
        assertThat(HandoffTriggers.sampled("anything/at-all", 1.0)).isTrue();
    }

    @Test
    void shouldTurnLinesIntoRecordsAndSyntheticHandoffsAtPositionsBetweenLines() throws IOException {
        List<String> lines = List.of(
            "{\"event_id\":\"e0\",\"tenant_id\":\"t1\",\"session_id\":\"s1\",\"occurred_at\":\"2026-11-30T09:00:00Z\","
                + "\"turn\":{\"seq\":0,\"agent\":\"qwen-coder\",\"role\":\"ASSISTANT\",\"text\":\"x\",\"trail\":[7,"
                + "{\"call_id\":\"c\",\"tool\":\"t\",\"arguments\":{},\"status\":\"ERROR\"}]}}",
            "{\"event_id\":\"e1\",\"tenant_id\":\"t1\",\"session_id\":\"s1\",\"occurred_at\":\"2026-11-30T09:00:01Z\","
                + "\"handoff\":{\"handoff_id\":\"baton-synthetic:error:0\",\"to_agent\":\"a\",\"target\":\"LOCAL\"}}");
        BackfillRunner.Items items = new BackfillRunner.Items(source(lines), 1 << 20,
            HandoffTriggers.parse(List.of("error", "last"), "claude-opus", null), 1.0);
        List<Replay.Item> out = new ArrayList<>();
        Replay.Item item;
        while ((item = items.next()) != null) {
            out.add(item);
        }
        out.addAll(items.afterSettle("t1/s1"));
        assertThat(out).extracting(Replay.Item::position).containsExactly(
            BackfillRunner.positionOf(1), BackfillRunner.positionOf(1) + 1, BackfillRunner.positionOf(2),
            BackfillRunner.positionOf(3) + 1);
        assertThat(out).extracting(i -> BackfillRunner.isSynthetic(i.position()))
            .containsExactly(false, true, false, true);
        assertThat(((Replay.Send) out.get(1)).snapshotId()).isEqualTo("t1/s1/baton-synthetic:error:0");
        // a real hand-off may not take a synthetic id: it is dead-lettered, never replayed
        assertThat(out.get(2)).isInstanceOf(Replay.Reject.class);
        assertThat(((Replay.Reject) out.get(2)).deadLetter().code()).isEqualTo("INVALID_ID");
        assertThat(((Replay.Send) out.get(3)).snapshotId()).isEqualTo("t1/s1/baton-synthetic:last");
        assertThat(BackfillRunner.lineOf(out.get(3).position())).isEqualTo(3);
    }

    private static BackfillRunner.LineSource source(List<String> lines) {
        return new BackfillRunner.LineSource() {
            int i;

            @Override
            public BackfillRunner.EventLine next() {
                if (i == lines.size()) {
                    return null;
                }
                byte[] b = lines.get(i).getBytes(StandardCharsets.UTF_8);
                i++;
                return new BackfillRunner.EventLine(i, new Jsonl.Line(b, b.length));
            }

            @Override
            public void close() {
            }
        };
    }
}
