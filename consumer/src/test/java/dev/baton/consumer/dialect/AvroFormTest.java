package dev.baton.consumer.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.Framing;
import dev.baton.avro.FramingKind;
import dev.baton.avro.Message;
import dev.baton.avro.Parity;
import dev.baton.avro.Retention;
import dev.baton.avro.Stats;
import dev.baton.avro.Target;
import dev.baton.avro.ToolCall;
import dev.baton.consumer.SnapshotPrompts;

/** Both snapshot forms give the same bytes in every dialect (the Avro form holds arguments as compact text). */
class AvroFormTest {

    private static final RequestOptions OPTIONS = new RequestOptions("m", 4096);

    @Test
    void shouldBuildTheSameLineFromTheAvroFormAsFromTheJsonForm() throws Exception {
        for (DialectCases.Case c : DialectCases.all()) {
            JsonNode json = SnapshotPrompts.readJson(c.snapshot());
            ContextSnapshot avro = toAvro(json);
            for (Dialect d : Dialect.all()) {
                assertThat(ReceiverRequest.write(ReceiverRequests.forTarget(avro, d, OPTIONS))).as("%s in %s", c.name(), d)
                        .isEqualTo(ReceiverRequest.write(ReceiverRequests.forTarget(json, d, OPTIONS)));
            }
        }
    }

    /** The Avro record of a JSON-form snapshot read by {@link SnapshotPrompts#readJson} (arguments as exact text). */
    private static ContextSnapshot toAvro(JsonNode s) {
        List<Message> messages = new ArrayList<>();
        for (JsonNode m : s.path("messages")) {
            List<ToolCall> calls = new ArrayList<>();
            for (JsonNode c : m.path("tool_calls")) {
                calls.add(ToolCall.newBuilder().setCallId(c.get("call_id").asText()).setTool(c.get("tool").asText())
                        .setArguments(c.get("arguments").asText()).build());
            }
            messages.add(Message.newBuilder().setRole(m.get("role").asText())
                    .setName(m.get("name").isNull() ? null : m.get("name").asText()).setContent(m.get("content").asText())
                    .setToolCalls(calls).setToolCallId(m.get("tool_call_id").isNull() ? null : m.get("tool_call_id").asText())
                    .build());
        }
        return ContextSnapshot.newBuilder().setSnapshotId(s.get("snapshot_id").asText()).setTenantId("acme")
                .setSessionId("s-1").setHandoffId(s.get("handoff_id").asText()).setFromAgent("qwen-coder")
                .setToAgent(s.get("to_agent").asText()).setTarget(Target.valueOf(s.get("target").asText()))
                .setAsOfSeq(9).setTurnCount(10).setOccurredAt(Instant.parse("2026-11-30T09:00:09Z"))
                .setFraming(Framing.newBuilder().setKind(FramingKind.CONTINUITY)
                        .setSystemPrompt(s.at("/framing/system_prompt").asText()).build())
                .setBrick(s.get("brick").asText()).setMessages(messages)
                .setRetention(Retention.newBuilder().setExpandedSeqs(List.of()).setInlinedSeqs(List.of())
                        .setManifestSeqs(List.of()).setManifestUnlisted(0).setTrailBytes(0).build())
                .setTruncations(List.of())
                .setStats(Stats.newBuilder().setMessageChars(0).setBrickChars(0).setEstimatedTokens(0).build())
                .setParity(Parity.newBuilder().setReferenceAgent("qwen-coder").setReferenceItems(0).setCoveredItems(0).build())
                .build();
    }
}
