package dev.baton.consumer.dialect;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A dialect's request read back for checking: its native calls, its texts in order and which of them are user- or
 * system-role. Numbers are read as {@link java.math.BigDecimal} and big integers, so literals compare by value.
 */
final class RequestView {

    static final ObjectMapper EXACT = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    /** A native call of the request: tool name and arguments as a JSON value. */
    record NativeCall(String tool, JsonNode arguments) {
    }

    /** A text of the request, in order; {@code userOrSystem} when a receiver reads it as user or system text. */
    record Piece(String text, boolean userOrSystem) {
    }

    final JsonNode body;
    final List<NativeCall> calls = new ArrayList<>();
    final List<Piece> texts = new ArrayList<>();

    RequestView(Dialect dialect, ReceiverRequest request) {
        this.body = parse(request.toJson());
        if (dialect == Dialect.OPENAI_RESPONSES) {
            texts.add(new Piece(body.path("instructions").asText(), true));
            for (JsonNode item : body.path("input")) {
                String type = item.path("type").asText();
                if (type.equals("message")) {
                    texts.add(new Piece(item.path("content").asText(), !item.path("role").asText().equals("assistant")));
                } else if (type.equals("function_call")) {
                    calls.add(new NativeCall(item.path("name").asText(), parse(item.path("arguments").asText())));
                } else if (type.equals("function_call_output")) {
                    texts.add(new Piece(item.path("output").asText(), false));
                }
            }
        } else if (dialect == Dialect.ANTHROPIC_MESSAGES) {
            texts.add(new Piece(body.path("system").asText(), true));
            for (JsonNode m : body.path("messages")) {
                boolean user = !m.path("role").asText().equals("assistant");
                for (JsonNode b : m.path("content")) {
                    switch (b.path("type").asText()) {
                        case "text" -> texts.add(new Piece(b.path("text").asText(), user));
                        case "tool_use" -> calls.add(new NativeCall(b.path("name").asText(), b.path("input")));
                        case "tool_result" -> texts.add(new Piece(b.path("content").asText(), false));
                        default -> { }
                    }
                }
            }
        } else if (dialect == Dialect.GEMINI) {
            for (JsonNode p : body.at("/systemInstruction/parts")) {
                texts.add(new Piece(p.path("text").asText(), true));
            }
            for (JsonNode m : body.path("contents")) {
                boolean user = !m.path("role").asText().equals("model");
                for (JsonNode p : m.path("parts")) {
                    if (p.has("text")) {
                        texts.add(new Piece(p.path("text").asText(), user));
                    } else if (p.has("functionCall")) {
                        calls.add(new NativeCall(p.at("/functionCall/name").asText(), p.at("/functionCall/args")));
                    } else if (p.has("functionResponse")) {
                        texts.add(new Piece(p.at("/functionResponse/response/output").asText(), false));
                    }
                }
            }
        } else {
            for (JsonNode m : body.path("messages")) {
                String role = m.path("role").asText();
                texts.add(new Piece(m.path("content").asText(), role.equals("user") || role.equals("system")));
                for (JsonNode c : m.path("tool_calls")) {
                    calls.add(new NativeCall(c.at("/function/name").asText(), parse(c.at("/function/arguments").asText())));
                }
            }
        }
    }

    /** All texts joined with a separator no text of a request holds, for finding texts in order. */
    String stream() {
        StringBuilder sb = new StringBuilder();
        for (Piece p : texts) {
            sb.append(p.text()).append('\u0000');
        }
        return sb.toString();
    }

    static JsonNode parse(String json) {
        try {
            return EXACT.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
    }
}
