package dev.baton.consumer.dialect.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequest;
import dev.baton.consumer.dialect.ReceiverRequests;
import dev.baton.consumer.dialect.RequestCheck;
import dev.baton.consumer.dialect.RequestOptions;

/**
 * Every dialect's request, built by the Java kit from each snapshot of the shared vectors
 * (examples/consumers/testdata/dialects.jsonl) and of this package's hand-made cases, sent by the provider's
 * official Java SDK to a {@link LoopbackReceiver}. The JSON on the wire (a) equals the dialect's JSON as a value
 * (numbers by value), after removing only the fields the SDK adds itself ({@link #SDK_ADDED}); (b) passes the kit's
 * {@link RequestCheck} (receiver rules and the dialect invariants), keeps the provider's documented rules as this
 * package checks them on the wire ({@link ProviderRules}, each citing its page) and, for the chat-completions bodies,
 * validates against OpenAI's published {@code CreateChatCompletionRequest} schema ({@link OpenAiSchema}; needs the
 * shared folder: set {@code SHARED_DATA_DIR}).
 *
 * <p>Run: {@code SHARED_DATA_DIR=/path/to/shared mvn -q -o -pl consumer -am test -Dtest='SdkRoundTripTest'
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class SdkRoundTripTest {

    /**
     * The fields an SDK adds to the body on its own, by dialect, each removed from the wire JSON before comparing only
     * when it has exactly the value listed here (so a field the SDK starts filling in fails the test). openai-java and
     * anthropic-java add nothing; google-genai 2.6.0 always sends an empty {@code generationConfig}.
     */
    static final Map<Dialect, Map<String, JsonNode>> SDK_ADDED = Map.of(
            Dialect.GEMINI, Map.of("generationConfig", JsonValues.parse("{}")));

    static final Path VECTORS = Paths.get("..", "examples", "consumers", "testdata", "dialects.jsonl").toAbsolutePath()
            .normalize();
    private static final RequestOptions OPTIONS = new RequestOptions("m-test", 4096);

    private static LoopbackReceiver receiver;
    private static SdkSenders senders;

    @BeforeAll
    static void start() throws Exception {
        receiver = new LoopbackReceiver();
        senders = new SdkSenders(receiver.baseUrl());
    }

    @AfterAll
    static void stop() {
        senders.close();
        receiver.close();
    }

    static List<RequestCases.Case> handMade() throws URISyntaxException {
        return RequestCases.read(Path.of(SdkRoundTripTest.class.getResource("/dialect-sdk/hand-made.jsonl").toURI()));
    }

    /** Every LOCAL snapshot (a CLAUDE_CLI one has no request, R11) with every dialect. */
    static Stream<Arguments> requests() throws URISyntaxException {
        List<RequestCases.Case> cases = new ArrayList<>(handMade());
        cases.addAll(RequestCases.read(VECTORS));
        List<Arguments> out = new ArrayList<>();
        for (RequestCases.Case c : cases) {
            if (c.snapshot().path("target").asText().equals("LOCAL")) {
                Dialect.all().forEach(d -> out.add(Arguments.of(c.name(), d, c.snapshot())));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource("requests")
    void shouldSendTheDialectJsonUnchangedAndWithinTheProvidersRules(String name, Dialect dialect, JsonNode snapshot) {
        ReceiverRequest request = ReceiverRequests.build(snapshot, dialect, OPTIONS);

        senders.send(request);
        LoopbackReceiver.Recorded sent = receiver.takeOnly();

        JsonNode wire = withoutSdkAdditions(dialect, JsonValues.parse(sent.body()));
        JsonNode want = JsonValues.parse(request.toJson());
        assertThat(JsonValues.sameValue(wire, want)).as("%s %s%nsent: %s%nwant: %s", sent.method(), sent.path(), wire, want)
                .isTrue();
        assertThat(sent.path()).isEqualTo(expectedPath(dialect));
        assertThat(ProviderRules.violations(dialect.name(), wire)).as("provider rules of %s", wire).isEmpty();
        ReceiverRequest arrived = new ReceiverRequest(dialect, (ObjectNode) wire, request.idMap());
        assertThat(RequestCheck.violations(snapshot, dialect, arrived)).as("RequestCheck of %s", wire).isEmpty();
        if (dialect == Dialect.OPENAI_CHAT || dialect.isChatTemplate()) {
            assertThat(OpenAiSchema.chatRequestErrors(sent.body())).as("CreateChatCompletionRequest of %s", wire).isEmpty();
        }
    }

    /** The hand-made cases hold the requests written by hand from docs/receivers.md: the kit builds the same. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("handMade")
    void shouldBuildTheRequestsWrittenByHandFromTheDocument(RequestCases.Case c) {
        c.line().get("requests").properties().forEach(e -> {
            ReceiverRequest built = ReceiverRequests.build(c.snapshot(), Dialect.parse(e.getKey()), OPTIONS);
            assertThat(JsonValues.sameValue(JsonValues.parse(built.toJson()), e.getValue()))
                    .as("%s%nbuilt: %s%nby hand: %s", e.getKey(), built.toJson(), e.getValue()).isTrue();
        });
    }

    @Test
    void shouldRefuseARequestOfAnotherDialect() throws Exception {
        ReceiverRequest gemini = ReceiverRequests.build(handMade().get(0).snapshot(), Dialect.GEMINI, OPTIONS);

        assertThatThrownBy(() -> AnthropicMessagesAdapter.params(gemini)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OpenAiChatAdapter.params(gemini)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OpenAiResponsesAdapter.params(gemini)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GeminiAdapter.request(
                ReceiverRequests.build(handMade().get(0).snapshot(), Dialect.OPENAI_CHAT, OPTIONS)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** The checks can fail: a request that breaks each provider's rules is caught. */
    @Test
    void shouldCatchRequestsThatBreakTheProvidersRules() {
        assertThat(ProviderRules.violations("anthropic-messages", JsonValues.parse("""
                {"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":""}]},
                 {"role":"assistant","content":[{"type":"tool_use","id":"c:1","name":"t","input":{}}]},
                 {"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"c:1","content":"r"}]},
                 {"role":"user","content":[{"type":"text","text":"y"}]}]}"""))).hasSize(5);
        assertThat(ProviderRules.violations("gemini", JsonValues.parse("""
                {"contents":[{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}}]},
                 {"role":"user","parts":[{"text":"x"},{"functionResponse":{"name":"a","response":{}}}]}]}"""))).hasSize(4);
        assertThat(ProviderRules.violations("openai-responses", JsonValues.parse("""
                {"model":"m","input":[{"type":"function_call","call_id":"a","name":"t","arguments":"{}"},
                 {"type":"function_call_output","call_id":"b","output":"r"}]}"""))).hasSize(2);
        String chat = """
                {"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","content":"r","tool_call_id":"a"},
                 {"role":"robot","content":"y"}]}""";
        assertThat(ProviderRules.violations("openai-chat", JsonValues.parse(chat))).hasSize(1);
        assertThat(OpenAiSchema.chatRequestErrors(chat)).isNotEmpty();
    }

    private static String expectedPath(Dialect dialect) {
        if (dialect == Dialect.OPENAI_RESPONSES) {
            return "/v1/responses";
        }
        if (dialect == Dialect.ANTHROPIC_MESSAGES) {
            return "/v1/messages";
        }
        if (dialect == Dialect.GEMINI) {
            return "/v1beta/models/" + SdkSenders.GEMINI_MODEL + ":generateContent";
        }
        return "/v1/chat/completions";
    }

    static JsonNode withoutSdkAdditions(Dialect dialect, JsonNode wire) {
        ObjectNode copy = wire.deepCopy();
        SDK_ADDED.getOrDefault(dialect, Map.of()).forEach((field, value) -> {
            if (value.equals(copy.get(field))) {
                copy.remove(field);
            }
        });
        return copy;
    }
}
