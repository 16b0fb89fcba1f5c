package dev.baton.consumer.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.consumer.SnapshotPrompts;

/** {@link RequestCheck}: every hand-written case passes in every dialect, and broken requests are caught. */
class RequestCheckTest {

    private static final RequestOptions OPTIONS = new RequestOptions("m", 4096);

    private static JsonNode snapshot(String name) throws Exception {
        for (DialectCases.Case c : DialectCases.all()) {
            if (c.name().equals(name)) {
                return SnapshotPrompts.readJson(c.snapshot());
            }
        }
        throw new AssertionError("no case " + name);
    }

    /** The request of the case, as a plain tree that a test may break. */
    private static ObjectNode body(JsonNode snapshot, Dialect d) {
        return (ObjectNode) RequestView.parse(ReceiverRequests.build(snapshot, d, OPTIONS).toJson());
    }

    private static List<String> check(JsonNode snapshot, Dialect d, ObjectNode body) {
        return RequestCheck.violations(snapshot, d, new ReceiverRequest(d, body, List.of()));
    }

    @Test
    void shouldPassEveryCaseInEveryDialect() throws Exception {
        for (DialectCases.Case c : DialectCases.all()) {
            if (c.name().equals("claude-cli")) {
                continue; // no transcript: nothing of a request to check (its line is the cli_prompt)
            }
            JsonNode s = SnapshotPrompts.readJson(c.snapshot());
            for (Dialect d : Dialect.all()) {
                assertThat(RequestCheck.violations(s, d, ReceiverRequests.build(s, d, OPTIONS))).as("%s in %s", c.name(), d)
                        .isEmpty();
            }
        }
    }

    @Test
    void shouldCatchReasoningBlocksAndSendNoneEvenWhenASnapshotCarriesReasoningFields() throws Exception {
        JsonNode s = snapshot("basic");
        ObjectNode anthropic = body(s, Dialect.ANTHROPIC_MESSAGES);
        ((ArrayNode) anthropic.at("/messages/1/content")).insertObject(0).put("type", "thinking")
                .put("thinking", "plan").put("signature", "c2ln");
        assertThat(check(s, Dialect.ANTHROPIC_MESSAGES, anthropic)).anyMatch(v -> v.startsWith("reasoning: "));
        ObjectNode gemini = body(s, Dialect.GEMINI);
        ((ObjectNode) gemini.at("/contents/1/parts/0")).put("thoughtSignature", "c2ln");
        assertThat(check(s, Dialect.GEMINI, gemini)).anyMatch(v -> v.startsWith("reasoning: "));
        ObjectNode responses = body(s, Dialect.OPENAI_RESPONSES);
        ((ArrayNode) responses.get("input")).insertObject(1).put("type", "reasoning").put("encrypted_content", "x");
        assertThat(check(s, Dialect.OPENAI_RESPONSES, responses)).anyMatch(v -> v.startsWith("reasoning: "));

        // A snapshot of a later schema (or a platform's own form) with the sender's reasoning beside a message: no
        // dialect passes it on (docs/receivers.md, "Reasoning": only the provider that wrote it can verify it).
        ObjectNode withReasoning = (ObjectNode) s.deepCopy();
        for (JsonNode m : withReasoning.get("messages")) {
            ((ObjectNode) m).put("reasoning_content", "SENDER-REASONING").putObject("thinking").put("signature", "c2ln");
        }
        for (Dialect d : Dialect.all()) {
            ReceiverRequest r = ReceiverRequests.build(withReasoning, d, OPTIONS);
            assertThat(r.toJson()).as("%s", d).doesNotContain("SENDER-REASONING").doesNotContain("c2ln");
            assertThat(RequestCheck.violations(withReasoning, d, r)).as("%s", d).isEmpty();
        }
    }

    @Test
    void shouldNotTakeTheOwnCallsNoteForAResultPlacedAsText() throws Exception {
        // found by DialectPropertiesTest: a result "…" and the note's "[result: …]" line (chat-template:alternating)
        JsonNode s = SnapshotPrompts.readJson(DialectCases.local("h-ellipsis", DialectCases.user(""),
                DialectCases.own("", DialectCases.call("c1", "read", "{}")), DialectCases.tool("c1", "…")));
        assertThat(RequestCheck.violations(s, Dialect.ALTERNATING, ReceiverRequests.build(s, Dialect.ALTERNATING, OPTIONS)))
                .isEmpty();
    }

    @Test
    void shouldCatchADroppedToolResult() throws Exception {
        JsonNode s = snapshot("several-calls");
        ObjectNode body = body(s, Dialect.ANTHROPIC_MESSAGES);
        ((ArrayNode) body.at("/messages/2/content")).remove(1);
        assertThat(check(s, Dialect.ANTHROPIC_MESSAGES, body)).anyMatch(v -> v.contains("tool_result for every tool_use"))
                .anyMatch(v -> v.startsWith("order: text \"two\" is missing"));
    }

    @Test
    void shouldCatchTwoTextsInTheWrongOrder() throws Exception {
        JsonNode s = snapshot("runs-of-one-role");
        ObjectNode body = body(s, Dialect.ANTHROPIC_MESSAGES);
        ArrayNode content = (ArrayNode) body.at("/messages/0/content");
        JsonNode first = content.remove(0);
        content.insert(1, first);
        assertThat(check(s, Dialect.ANTHROPIC_MESSAGES, body)).containsExactly("order: text \"Two.\" is out of order");
    }

    @Test
    void shouldCatchANarratedCallSentAsANativeCall() throws Exception {
        JsonNode s = snapshot("basic");
        ObjectNode body = body(s, Dialect.OPENAI_RESPONSES);
        ((ArrayNode) body.get("input")).insert(1, RequestView.parse(
                "{\"type\":\"function_call\",\"call_id\":\"n1\",\"name\":\"grep\",\"arguments\":\"{\\\"pattern\\\":\\\"flaky\\\"}\"}"));
        assertThat(check(s, Dialect.OPENAI_RESPONSES, body)).contains("R1: 2 native calls, the snapshot has 1 own calls");
    }

    @Test
    void shouldCatchADuplicateAnthropicId() throws Exception {
        JsonNode s = snapshot("reused-ids");
        ObjectNode body = body(s, Dialect.ANTHROPIC_MESSAGES);
        ((ObjectNode) body.at("/messages/3/content/0")).put("id", "c1");
        ((ObjectNode) body.at("/messages/4/content/0")).put("tool_use_id", "c1");
        assertThat(check(s, Dialect.ANTHROPIC_MESSAGES, body)).containsExactly("anthropic: tool_use id c1 is not unique");
    }

    @Test
    void shouldCatchABrokenMistralAlternation() throws Exception {
        JsonNode s = snapshot("mistral-filler");
        ObjectNode body = body(s, Dialect.MISTRAL_TOOLS);
        assertThat(body.at("/messages/3/content").asText()).isEmpty();
        ((ArrayNode) body.get("messages")).remove(3); // the empty user message between the text and the next call
        assertThat(check(s, Dialect.MISTRAL_TOOLS, body)).anyMatch(v -> v.contains("breaks the template's user/assistant"));
    }

    @Test
    void shouldCatchAGeminiResponseOutOfPosition() throws Exception {
        JsonNode s = snapshot("several-calls");
        ObjectNode body = body(s, Dialect.GEMINI);
        ArrayNode parts = (ArrayNode) body.at("/contents/2/parts");
        parts.insert(1, parts.remove(2)); // read, stat, read: the names no longer match the calls' positions
        assertThat(check(s, Dialect.GEMINI, body)).anyMatch(v -> v.contains("does not answer the call in its position"))
                .anyMatch(v -> v.startsWith("order: text"));
    }

    @Test
    void shouldCatchAResultPutUnescapedIntoUserText() throws Exception {
        JsonNode s = snapshot("escaped-system-lines");
        ObjectNode body = body(s, Dialect.ALTERNATING);
        ObjectNode user = (ObjectNode) body.at("/messages/3");
        user.put("content", user.get("content").asText().replace(DialectTexts.escape("[INFO] start\r\n(paren)\r…\n\\back"),
                "[INFO] start\r\n(paren)\r…\n\\back"));
        assertThat(check(s, Dialect.ALTERNATING, body)).anyMatch(v -> v.startsWith("R2: result"));
    }

    @Test
    void shouldCatchAMissingNote() throws Exception {
        JsonNode s = snapshot("other-agent-text");
        ObjectNode body = body(s, Dialect.GEMINI);
        ((ObjectNode) body.at("/systemInstruction/parts/0")).put("text", "You own this work.\n\nSession acme/s-1.");
        assertThat(check(s, Dialect.GEMINI, body)).containsExactly(
                "framing: another agent's text is attributed but the system text lacks the attributed-text note");
    }

    @Test
    void shouldNameTheDialectsWhenParsingAnUnknownOne() {
        assertThat(Dialect.all()).extracting(Dialect::name).containsExactly("openai-chat", "openai-responses",
                "anthropic-messages", "gemini", "chat-template:chatml-tools", "chat-template:single-system",
                "chat-template:llama3-json", "chat-template:mistral-tools", "chat-template:alternating");
        assertThat(Dialect.parse("gemini")).isSameAs(Dialect.GEMINI);
        assertThatThrownBy(() -> Dialect.parse("claude")).hasMessageContaining("unknown dialect \"claude\"")
                .hasMessageContaining("openai-chat, openai-responses, anthropic-messages");
    }
}
