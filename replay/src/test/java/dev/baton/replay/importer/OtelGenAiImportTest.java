package dev.baton.replay.importer;

import static dev.baton.replay.importer.Imported.resource;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.processor.InboundEvent;
import dev.baton.replay.importer.ImportReport.Kind;
import dev.baton.replay.importer.ImportSettings.Format;

class OtelGenAiImportTest {

    private static final ImportSettings OTEL = ImportSettings.defaults(Format.OTEL_GENAI, "acme");
    private static final String TRACE = "0af7651916cd43dd8448eb211c80319c";

    @TempDir
    Path dir;

    @Test
    void shouldMapAConversationSpreadOverExportsToOneSessionWithoutRepeatingTheHistory() throws IOException {
        Imported out = Imported.run(OTEL, resource("otel/support-traces.jsonl"));

        assertThat(out.sessions()).containsExactly("conv-42", TRACE);
        List<Turn> turns = out.turns("conv-42");
        assertThat(turns).extracting(Turn::role).containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.ASSISTANT,
                Role.ASSISTANT, Role.ASSISTANT);
        assertThat(turns).extracting(Turn::agent).containsExactly("system", "user", "gpt-4o", "gpt-4o", "gpt-4o",
                "billing");
        assertThat(turns.get(0).text()).isEqualTo("You are the billing assistant.");
        assertThat(turns.get(1).text()).isEqualTo("Why was I charged twice for order 1234?");
        assertThat(turns.get(2).text()).isEqualTo("Let me look the order up.");
        // the result of the execute_tool span with the call's id, not the tool message's copy of it
        assertThat(turns.get(3).trail()).containsExactly(new ToolStep("call_1", "lookup_order", "{\"order_id\":\"1234\"}",
                "{\"charges\": 2}", StepStatus.OK));
        assertThat(turns.get(4).text()).startsWith("You were charged twice");
        // a tool run that no chat call asked for: a turn of its own, status from the span
        assertThat(turns.get(5).trail()).containsExactly(new ToolStep("call_2", "open_ticket", "{\"queue\":\"refunds\"}",
                "queue refunds is closed", StepStatus.ERROR));
        assertThat(out.events("conv-42")).extracting(InboundEvent::occurredAtMillis).startsWith(
                Instant.ofEpochSecond(1764500001).toEpochMilli());
        assertThat(out.report.counts()).doesNotContainKey(Kind.REJECTED).doesNotContainKey(Kind.RESULT_WITHOUT_CALL);
    }

    @Test
    void shouldReadTheOlderMessageEventsAndUseTheTraceAsTheSession() throws IOException {
        Imported out = Imported.run(OTEL, resource("otel/support-traces.jsonl"));

        List<Turn> turns = out.turns(TRACE);
        assertThat(turns).extracting(Turn::role).containsExactly(Role.USER, Role.ASSISTANT, Role.ASSISTANT);
        assertThat(turns.get(0).text()).isEqualTo("My invoice is wrong.");
        assertThat(turns.get(1).trail()).containsExactly(new ToolStep("c9", "get_invoice", "{\"id\":7}",
                "invoice 7: 3 items", StepStatus.OK));
        assertThat(turns.get(2).text()).isEqualTo("Invoice 7 has 3 items; which one is wrong?");
        assertThat(turns).extracting(Turn::agent).containsExactly("user", "llama-3", "llama-3");
    }

    @Test
    void shouldNameAgentsByAgentNameWhenAskedAndRenderAHandoff() throws IOException {
        Imported byAgent = Imported.run(OTEL.withAgentNameFrom(ImportSettings.AgentNameFrom.AGENT),
                resource("otel/support-traces.jsonl"));
        assertThat(byAgent.turns("conv-42")).extracting(Turn::agent).containsExactly("system", "user", "billing",
                "billing", "billing", "billing");
        assertThat(byAgent.turns(TRACE)).extracting(Turn::agent).containsExactly("user", "triage", "triage");
        var snapshot = byAgent.render("conv-42", "refunds");
        assertThat(snapshot.brick()).contains("open_ticket");
    }

    @Test
    void shouldRejectAFileThatIsNotATraceExportAndSaySo() throws IOException {
        Path chat = dir.resolve("chat.jsonl");
        Files.writeString(chat, "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n");
        Imported out = Imported.run(OTEL, chat);
        assertThat(out.events).isEmpty();
        assertThat(out.report.notes()).extracting(ImportReport.Note::message)
                .containsExactly("no \"resourceSpans\": this looks like a chat log (try --from openai-chat)");
    }
}
