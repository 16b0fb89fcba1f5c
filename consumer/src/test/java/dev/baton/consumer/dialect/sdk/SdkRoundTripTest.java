package dev.baton.consumer.dialect.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every dialect's request sent by the provider's official Java SDK to a loopback receiver: the JSON on the wire
 * equals the dialect's JSON as a value (numbers by value), after removing only the fields the SDK adds itself
 * ({@link #SDK_ADDED}).
 */
class SdkRoundTripTest {

    /**
     * The fields an SDK adds to the body on its own, by dialect, each removed from the wire JSON before comparing only
     * when it has exactly the value listed here (so a field the SDK starts filling in fails the test). openai-java and
     * anthropic-java add nothing; google-genai 2.6.0 always sends an empty {@code generationConfig}.
     */
    static final Map<String, Map<String, JsonNode>> SDK_ADDED = Map.of(
            "gemini", Map.of("generationConfig", JsonValues.parse("{}")));

    private static LoopbackReceiver receiver;
    private static SdkSenders senders;

    @BeforeAll
    static void start() throws IOException {
        receiver = new LoopbackReceiver();
        senders = new SdkSenders(receiver.baseUrl());
    }

    @AfterAll
    static void stop() {
        senders.close();
        receiver.close();
    }

    static Stream<Arguments> handMade() throws IOException {
        List<Arguments> out = new ArrayList<>();
        try (InputStream in = SdkRoundTripTest.class.getResourceAsStream("/dialect-sdk/hand-made.jsonl")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                JsonNode c = JsonValues.parse(line);
                c.get("requests").properties().forEach(e ->
                        out.add(Arguments.of(c.get("name").asText(), e.getKey(), e.getValue())));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource("handMade")
    void shouldSendTheDialectJsonUnchangedThroughTheSdk(String name, String dialect, JsonNode body) {
        senders.send(dialect, body);
        LoopbackReceiver.Recorded sent = receiver.takeOnly();

        JsonNode wire = withoutSdkAdditions(dialect, JsonValues.parse(sent.body()));
        assertThat(JsonValues.sameValue(wire, body)).as("%s %s%nsent: %s%nwant: %s", sent.method(), sent.path(), wire, body)
                .isTrue();
    }

    static JsonNode withoutSdkAdditions(String dialect, JsonNode wire) {
        ObjectNode copy = wire.deepCopy();
        SDK_ADDED.getOrDefault(dialect, Map.of()).forEach((field, value) -> {
            if (value.equals(copy.get(field))) {
                copy.remove(field);
            }
        });
        return copy;
    }
}
