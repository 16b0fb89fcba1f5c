package dev.baton.replay.importer;

import static dev.baton.replay.importer.Imported.resource;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.replay.importer.ImportReport.Kind;
import dev.baton.replay.importer.ImportSettings.Format;

class ChatImportTest {

    private static final ImportSettings CHAT = ImportSettings.defaults(Format.OPENAI_CHAT, "acme");

    @Test
    void shouldTurnToolCallsAnsweredRightAfterThemIntoTheTrailInCallOrder() throws IOException {
        Imported out = Imported.run(CHAT, resource("chat/adjacent.json"));

        assertThat(out.sessions()).containsExactly("chatcmpl-log-1");
        List<Turn> turns = out.turns("chatcmpl-log-1");
        assertThat(turns).extracting(Turn::role).containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.ASSISTANT,
                Role.ASSISTANT, Role.USER, Role.ASSISTANT, Role.ASSISTANT);
        assertThat(turns.get(2).text()).isEqualTo("Let me check both.");
        assertThat(turns.get(3).trail()).containsExactly(
                new ToolStep("call_w1", "get_weather", "{\"city\":\"Zürich\",\"days\":1.0}", "Zürich: 12°C, rain", StepStatus.OK),
                new ToolStep("call_w2", "get_weather", "{\"city\":\"Paris\"}", "Paris: 18°C, cloudy", StepStatus.OK));
        assertThat(turns.get(5).text()).isEqualTo("And Rome?");
        assertThat(turns.get(6).agent()).isEqualTo("gpt-4o");
        assertThat(turns.get(6).trail()).extracting(ToolStep::status).containsExactly(StepStatus.ERROR);
        assertThat(turns).noneMatch(t -> t.role() == Role.TOOL);
        assertThat(out.report.notes()).isEmpty();
    }

    @Test
    void shouldKeepCallsAnsweredElsewhereAsLegacyCallsWithToolTurnsWhereTheAnswersAre() throws IOException {
        Imported out = Imported.run(CHAT, resource("chat/legacy.json"));

        List<Turn> turns = out.turns("chat-legacy");
        assertThat(turns).extracting(Turn::role).containsExactly(Role.USER, Role.ASSISTANT, Role.USER, Role.TOOL, Role.TOOL,
                Role.ASSISTANT, Role.ASSISTANT);
        assertThat(turns.get(1).toolCalls()).containsExactly(new ToolCall("call_ls", "ls", "{\"dir\":\".\"}"));
        assertThat(turns.get(3).toolCallId()).isEqualTo("call_ls");
        assertThat(turns.get(3).text()).isEqualTo("a.txt\nb.txt");
        assertThat(turns.get(4).toolCallId()).isEqualTo("call_nobody"); // answers no call: narrated as tool unknown
        // an old-style function_call answered by the function message right after it
        assertThat(turns.get(5).trail()).containsExactly(new ToolStep("m5-function-call", "du", "{\"path\":\"a.txt\"}",
                "4.0K a.txt", StepStatus.OK));
        assertThat(out.report.counts()).containsEntry(Kind.LEGACY_CALLS, 1).containsEntry(Kind.RESULT_WITHOUT_CALL, 1);

        // what a receiver sees: the legacy call and its answer narrated together, the orphan as tool unknown
        String narrated = String.join("\n", out.render("chat-legacy", "claude-opus").messages().stream()
                .map(m -> m.content()).toList());
        assertThat(narrated).contains("[llama-3_1-8b called ls({\"dir\":\".\"})]\n[result: a.txt\nb.txt]",
                "[llama-3_1-8b called unknown({})]\n[result: orphan result]");
    }

    @Test
    void shouldReadAFileOfMessagesAsOneConversationNamedAfterTheFile() throws IOException {
        Imported out = Imported.run(CHAT, resource("chat/messages.jsonl"));

        assertThat(out.sessions()).containsExactly("messages");
        assertThat(out.turns("messages")).extracting(Turn::text).containsExactly("ping", "pong");
    }

    @Test
    void shouldRejectAtifGivenAsChatAndNameAgentsByMessageNameWhenAsked() throws IOException {
        Imported out = Imported.run(CHAT, resource("atif/v1_0-single-call.json"), resource("chat/messages.jsonl"));
        assertThat(out.report.notes()).filteredOn(n -> n.kind() == Kind.REJECTED).extracting(ImportReport.Note::message)
                .containsExactly("no \"messages\" array: this looks like an ATIF trajectory (try --from atif)");
        assertThat(out.sessions()).containsExactly("messages");

        Imported byName = Imported.run(CHAT.withAgentNameFrom(ImportSettings.AgentNameFrom.AGENT), resource("chat/adjacent.json"));
        assertThat(byName.turns("chatcmpl-log-1")).filteredOn(t -> t.role() == Role.ASSISTANT).extracting(Turn::agent)
                .containsOnly("assistant");
    }
}
