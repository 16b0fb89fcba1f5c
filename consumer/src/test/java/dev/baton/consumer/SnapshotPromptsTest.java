package dev.baton.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.Framing;
import dev.baton.avro.FramingKind;
import dev.baton.avro.Message;
import dev.baton.avro.Parity;
import dev.baton.avro.Retention;
import dev.baton.avro.Stats;
import dev.baton.avro.Target;
import dev.baton.avro.ToolCall;

class SnapshotPromptsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ContextSnapshot snapshot(Target target, List<Message> messages, String brick) {
        return ContextSnapshot.newBuilder()
                .setSnapshotId("acme/s-1/h1").setTenantId("acme").setSessionId("s-1").setHandoffId("h1")
                .setFromAgent("qwen-coder").setToAgent("claude-opus").setTarget(target).setAsOfSeq(2).setTurnCount(3)
                .setOccurredAt(Instant.parse("2026-11-30T09:00:09Z"))
                .setFraming(Framing.newBuilder().setKind(FramingKind.CONTINUITY).setSystemPrompt("You own this work.").build())
                .setBrick(brick).setMessages(messages)
                .setRetention(Retention.newBuilder().setExpandedSeqs(List.of()).setInlinedSeqs(List.of()).setManifestSeqs(List.of())
                        .setManifestUnlisted(0).setTrailBytes(0).build())
                .setTruncations(List.of())
                .setStats(Stats.newBuilder().setMessageChars(0).setBrickChars(brick.length()).setEstimatedTokens(0).build())
                .setParity(Parity.newBuilder().setReferenceAgent("qwen-coder").setReferenceItems(0).setCoveredItems(0).build())
                .build();
    }

    private static final List<Message> MESSAGES = List.of(
            Message.newBuilder().setRole("user").setContent("Fix the flaky test.").setToolCalls(List.of()).build(),
            Message.newBuilder().setRole("assistant").setName("qwen-coder").setContent("Looking.")
                    .setToolCalls(List.of(ToolCall.newBuilder().setCallId("c1").setTool("run_tests").setArguments("{\"repeat\":20}").build()))
                    .build(),
            Message.newBuilder().setRole("tool").setContent("3 failed").setToolCalls(List.of()).setToolCallId("c1").build());

    @Test
    void shouldMapALocalSnapshotOntoAChatRequest() throws Exception {
        JsonNode body = SnapshotPrompts.chatRequest(snapshot(Target.LOCAL, MESSAGES, "Session acme/s-1."), "qwen3");
        assertThat(body).isEqualTo(JSON.readTree("""
            {"model":"qwen3","messages":[
              {"role":"system","content":"You own this work.\\n\\nSession acme/s-1."},
              {"role":"user","content":"Fix the flaky test."},
              {"role":"assistant","name":"qwen-coder","content":"Looking.",
               "tool_calls":[{"id":"c1","type":"function","function":{"name":"run_tests","arguments":"{\\"repeat\\":20}"}}]},
              {"role":"tool","content":"3 failed","tool_call_id":"c1"}]}
            """));
    }

    @Test
    void shouldGiveTheCliThePromptAndBrickWithoutTranscript() {
        ContextSnapshot cli = snapshot(Target.CLAUDE_CLI, List.of(), "Session acme/s-1.");
        assertThat(SnapshotPrompts.cliPrompt(cli)).isEqualTo("You own this work.\n\nSession acme/s-1.");
        JsonNode line = SnapshotPrompts.forTarget(cli, "ignored");
        assertThat(line.has("chat_request")).isFalse();
        assertThat(line.get("cli_prompt").asText()).isEqualTo("You own this work.\n\nSession acme/s-1.");
        assertThat(SnapshotPrompts.systemText("Prompt.", "")).isEqualTo("Prompt.");
    }

    @Test
    void shouldMapTheJsonFormLikeTheAvroForm() throws Exception {
        ContextSnapshot avro = snapshot(Target.LOCAL, MESSAGES, "Session acme/s-1.");
        // the JSON form writes arguments as an object (docs/contract.md, "JSONL files")
        JsonNode json = JSON.readTree("""
            {"snapshot_id":"acme/s-1/h1","target":"LOCAL","framing":{"kind":"CONTINUITY","system_prompt":"You own this work."},
             "brick":"Session acme/s-1.","messages":[
              {"role":"user","name":null,"content":"Fix the flaky test.","tool_calls":[],"tool_call_id":null},
              {"role":"assistant","name":"qwen-coder","content":"Looking.",
               "tool_calls":[{"call_id":"c1","tool":"run_tests","arguments":{"repeat":20}}],"tool_call_id":null},
              {"role":"tool","name":null,"content":"3 failed","tool_calls":[],"tool_call_id":"c1"}]}
            """);
        assertThat(SnapshotPrompts.forTarget(json, "qwen3")).isEqualTo(SnapshotPrompts.forTarget(avro, "qwen3"));
    }

    /** The same ledger the Python and Node kits' tests use (examples/consumers/testdata/ledger.json). */
    static final String LEDGER_TEXT = "[call ledger: 15 calls in 2 entries, newest first; 1 older entry (1 calls) dropped]\n"
            + "run_tests x12: newest seq 41 by coder, ERROR; 2 OK, 10 ERROR; args sha256 0d4bf368cf0c; narrated\n"
            + "apply_patch x2: newest seq 17 by qwen, UNANSWERED; 1 OK, 1 UNANSWERED; args sha256 8f1fb7d30b09; not_shown";

    @Test
    void shouldAddTheCallLedgerAsOneSystemMessageOnlyWhenAsked() throws Exception {
        JsonNode ledger = JSON.readTree(Files.readString(TESTDATA.resolve("ledger.json"), StandardCharsets.UTF_8));
        assertThat(SnapshotPrompts.ledgerText(ledger)).isEqualTo(LEDGER_TEXT);

        ContextSnapshot avro = snapshot(Target.LOCAL, MESSAGES, "Session acme/s-1.");
        avro.setCallLedger(AvroLedger.of(ledger));
        JsonNode without = SnapshotPrompts.chatRequest(avro, "qwen3");
        JsonNode with = SnapshotPrompts.chatRequest(avro, "qwen3", true);
        assertThat(without.get("messages")).hasSize(4);
        assertThat(with.get("messages")).hasSize(5);
        assertThat(with.at("/messages/1/role").asText()).isEqualTo("system");
        assertThat(with.at("/messages/1/content").asText()).isEqualTo(LEDGER_TEXT);
        assertThat(with.at("/messages/2")).isEqualTo(without.at("/messages/1"));

        com.fasterxml.jackson.databind.node.ObjectNode json = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(
                "{\"framing\":{\"system_prompt\":\"You own this work.\"},\"brick\":\"Session acme/s-1.\",\"messages\":[]}");
        json.set("call_ledger", ledger);
        assertThat(SnapshotPrompts.chatRequest(json, "qwen3", true).at("/messages/1/content").asText()).isEqualTo(LEDGER_TEXT);
        json.putNull("call_ledger");
        assertThat(SnapshotPrompts.chatRequest(json, "qwen3", true).get("messages")).as("no ledger: no message").hasSize(1);
    }

    /** The JSON ledger of the test data as the Avro record. */
    static final class AvroLedger {
        static dev.baton.avro.CallLedger of(JsonNode l) {
            List<dev.baton.avro.CallLedgerEntry> entries = new ArrayList<>();
            for (JsonNode e : l.get("entries")) {
                entries.add(new dev.baton.avro.CallLedgerEntry(e.get("tool").asText(), e.get("arguments_sha256").asText(),
                        e.get("count").asLong(), e.get("ok").asLong(), e.get("error").asLong(), e.get("cleared").asLong(),
                        e.get("unanswered").asLong(), e.get("first_seq").asLong(), e.get("seq").asLong(),
                        e.get("agent").asText(), e.get("call_id").isNull() ? null : e.get("call_id").asText(),
                        e.get("status").asText(), e.get("result_sha256").isNull() ? null : e.get("result_sha256").asText(),
                        e.get("result_bytes").asLong(), e.get("visible").asText(), e.get("side_effecting").asBoolean()));
            }
            return new dev.baton.avro.CallLedger(entries, l.get("calls").asLong(), l.get("dropped_entries").asLong(),
                    l.get("dropped_calls").asLong());
        }
    }

    private static final Path TESTDATA = Paths.get("..", "examples", "consumers", "testdata");

    @Test
    void shouldMapTheJsonFormWithTheArgumentsTextAsWritten() throws Exception {
        // the same files as the Python and Node kits' unit tests: all three give the same lines
        List<String> lines = Files.readAllLines(TESTDATA.resolve("json-form.jsonl"), StandardCharsets.UTF_8);
        List<JsonNode> expected = new ArrayList<>();
        for (String line : Files.readAllLines(TESTDATA.resolve("prompts.jsonl"), StandardCharsets.UTF_8)) {
            expected.add(JSON.readTree(line));
        }
        List<JsonNode> actual = new ArrayList<>();
        for (String line : lines) {
            actual.add(SnapshotPrompts.forTarget(SnapshotPrompts.readJson(line), "qwen3"));
        }
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void shouldGiveJsonFormArgumentsAsTheTextTheAvroFormHolds() throws Exception {
        String line = Files.readAllLines(TESTDATA.resolve("json-form.jsonl"), StandardCharsets.UTF_8).get(0);
        String raw = "{\"repeat\":1e3,\"ratio\":1.10,\"big\":123456789012345678901234567890,"
                + "\"name\":\"caf\\u00e9 \\\"q\\\" \u00e9\",\"nested\":{\"arguments\":{\"a\":[1,{\"b\":\"}\"}]}}}";
        JsonNode calls = SnapshotPrompts.chatRequest(SnapshotPrompts.readJson(line), "m").at("/messages/2/tool_calls");
        assertThat(calls.get(0).at("/function/arguments").asText()).isEqualTo(raw);
        assertThat(calls.get(1).at("/function/arguments").asText()).isEqualTo("{}");
        List<Message> messages = List.of(
                Message.newBuilder().setRole("user").setContent("Quote: \"arguments\":{\"not\":\"a call\"}").setToolCalls(List.of()).build(),
                Message.newBuilder().setRole("assistant").setName("qwen-coder").setContent("Looking.").setToolCalls(List.of(
                        ToolCall.newBuilder().setCallId("c1").setTool("run_tests").setArguments(raw).build(),
                        ToolCall.newBuilder().setCallId("c2").setTool("noop").setArguments("{}").build())).build(),
                Message.newBuilder().setRole("tool").setContent("3 failed").setToolCalls(List.of()).setToolCallId("c1").build(),
                Message.newBuilder().setRole("tool").setContent("ok").setToolCalls(List.of()).setToolCallId("c2").build());
        assertThat(SnapshotPrompts.forTarget(SnapshotPrompts.readJson(line), "m"))
                .isEqualTo(SnapshotPrompts.forTarget(snapshot(Target.LOCAL, messages, "Session acme/s-1."), "m"));
    }
}
