package dev.baton.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.properties.RetentionAccounting;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Small recorded-style sessions (src/test/resources/recorded/, written for these tests in the shape imported runs
 * have: bare tool calls with reused ids, observations without a call, system observations as TOOL turns, terminal
 * output with CR and bare CR, long heads, many short turns) through the engine, at the budgets of their hand-offs:
 * what recorded runs must render right (docs/rendering.md). The same files go through {@code baton backfill} in {@code BackfillRecordedFixturesIT}.
 */
class RecordedFixturesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A small inline budget, so that these small files reach the manifest (the default needs 160 KiB of trails). */
    static final Policy POLICY = Policy.builder().inlineTrailBytes(8_000).build();

    record Fixture(List<Turn> turns, List<Handoff> handoffs) {
    }

    static Fixture read(String name) throws IOException {
        List<Turn> turns = new ArrayList<>();
        List<Handoff> handoffs = new ArrayList<>();
        try (InputStream in = RecordedFixturesTest.class.getResourceAsStream("/recorded/" + name)) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank()) continue;
                JsonNode e = JSON.readTree(line);
                if (e.has("turn")) turns.add(turn(e.get("turn")));
                if (e.has("handoff")) handoffs.add(handoff(e.get("handoff")));
            }
        }
        return new Fixture(turns, handoffs);
    }

    static Turn turn(JsonNode t) {
        List<ToolStep> trail = new ArrayList<>();
        for (JsonNode s : t.path("trail")) {
            trail.add(new ToolStep(text(s, "call_id"), s.get("tool").asText(), s.get("arguments").toString(),
                    text(s, "result"), StepStatus.valueOf(s.get("status").asText())));
        }
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode c : t.path("tool_calls")) {
            calls.add(new ToolCall(text(c, "call_id"), c.get("tool").asText(), c.get("arguments").toString()));
        }
        return new Turn(t.get("seq").asLong(), t.get("agent").asText(), Role.valueOf(t.get("role").asText()),
                t.get("text").asText(), trail, calls, text(t, "tool_call_id"), null, null);
    }

    static Handoff handoff(JsonNode h) {
        return new Handoff(h.get("handoff_id").asText(), text(h, "from_agent"), h.get("to_agent").asText(),
                Target.valueOf(h.get("target").asText()), text(h, "brief"), null,
                h.has("message_budget_chars") ? h.get("message_budget_chars").asInt() : null);
    }

    static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    static SessionState apply(Fixture f, SessionState s, Policy p) {
        for (Turn t : f.turns) s.offerTurn(t, p, 0L);
        return s;
    }

    static Snapshot render(SessionState s, Handoff h, Policy p) {
        return ContextEngine.render("fixtures", "s", s, new ReadyHandoff(h, 0L, null), p);
    }

    static String shown(Snapshot s) {
        StringBuilder sb = new StringBuilder(s.brick());
        for (Message m : s.messages()) sb.append('\n').append(m.content());
        return sb.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"chat-reused-call-ids.jsonl", "atif-system-observations.jsonl", "many-short-turns.jsonl"})
    void shouldRenderEveryHandoffOfARecordedSessionWithinTheRules(String name) throws IOException {
        Fixture f = read(name);
        for (Policy p : List.of(POLICY, Policy.defaults())) {
            SessionState compacted = apply(f, SessionState.empty(), p);
            SessionState full = apply(f, SessionState.uncompacted(), p);
            for (Handoff h : f.handoffs) {
                Snapshot snap = render(compacted, h, p);
                assertThat(render(full, h, p)).as("compaction is invisible").isEqualTo(snap);
                assertThat(render(StateStorage.InMemory.roundTrip(compacted), h, p)).isEqualTo(snap);
                if (h.target() == Target.LOCAL) {
                    assertThat(snap.stats().messageChars()).isLessThanOrEqualTo(p.transcriptBudgetFor(h.messageBudgetChars()));
                }
                assertThat(shown(snap)).doesNotContainPattern("seq (\\d+)–\\1\\b");
                for (Truncation t : snap.truncations()) {
                    if (t.seqFrom() != null && t.kind() != TruncationKind.SEGMENT_TRIMMED
                            && t.kind() != TruncationKind.BRICK_RESULT_TRUNCATED) {
                        assertThat(t.seqTo() - t.seqFrom() + 1).as("%s spans its count", t).isGreaterThanOrEqualTo(t.count());
                    }
                }
                RetentionAccounting.of(f.turns).check(snap.retention(), snap.truncations());
            }
        }
    }

    @Test
    void shouldManifestTheEarlySystemObservationAndShowTheNewestOrphansInFull() throws IOException {
        Fixture f = read("atif-system-observations.jsonl");
        SessionState s = apply(f, SessionState.empty(), POLICY);
        Snapshot snap = render(s, f.handoffs.get(1), POLICY);
        // seq 2 is the 20 KB environment snapshot, a TOOL turn without a call: a trail of its own, now manifested
        assertThat(snap.retention().manifestSeqs()).contains(2L);
        assertThat(shown(snap)).contains("[seq 2 system: unknown]").doesNotContain("module-0001.jmod");
        // the newest trails are expanded whatever they are
        assertThat(snap.retention().expandedSeqs()).hasSize(2);
    }

    @Test
    void shouldListEveryAnswerOfAReusedIdOnceAndNarrateTheSecondAsUnknown() throws IOException {
        Fixture f = read("chat-reused-call-ids.jsonl");
        Snapshot snap = render(apply(f, SessionState.empty(), Policy.defaults()), f.handoffs.get(0), Policy.defaults());
        assertThat(shown(snap)).contains("[qwen-coder called unknown({})]\n[result: \\(a second answer to the same id) exit status 1]")
                .contains("[qwen-coder called unknown({})]\n[result: watchdog: the sandbox restarted the shell]")
                .contains("[qwen-coder called str_replace_editor(")
                .contains("[no result recorded]");
    }

    @Test
    void shouldSummarizeTheOldestPasteAndKeepTheShortTurnsAfterIt() throws IOException {
        Fixture f = read("many-short-turns.jsonl");
        Snapshot snap = render(apply(f, SessionState.empty(), Policy.defaults()), f.handoffs.get(1), Policy.defaults());
        assertThat(snap.truncations()).extracting(Truncation::kind).contains(TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED)
                .doesNotContain(TruncationKind.TRANSCRIPT_MIDDLE_DROPPED);
        // the longest tail that leaves room for the digest of what it omits keeps the second paste (seq 32) whole;
        // the first one (seq 12) is a digest line (reserving the digest's whole budget first omitted both)
        assertThat(shown(snap)).contains("Traceback (second paste):\n").doesNotContain("Traceback (first paste):\n")
                .contains("[seq 12 mini-swe] Traceback (first paste):");
    }
}
