package dev.baton.consumer.dialect;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;

import dev.baton.avro.ContextSnapshot;
import dev.baton.consumer.SnapshotPrompts;
import dev.baton.consumer.dialect.SnapshotUnits.Call;
import dev.baton.consumer.dialect.SnapshotUnits.Narration;
import dev.baton.consumer.dialect.SnapshotUnits.Other;
import dev.baton.consumer.dialect.SnapshotUnits.Own;
import dev.baton.consumer.dialect.SnapshotUnits.Result;
import dev.baton.consumer.dialect.SnapshotUnits.Unit;
import dev.baton.consumer.dialect.SnapshotUnits.User;
import dev.baton.consumer.dialect.StrictTurns.CallPiece;
import dev.baton.consumer.dialect.StrictTurns.Piece;
import dev.baton.consumer.dialect.StrictTurns.ResultPiece;
import dev.baton.consumer.dialect.StrictTurns.Role;
import dev.baton.consumer.dialect.StrictTurns.Text;
import dev.baton.consumer.dialect.StrictTurns.Turn;

/**
 * A snapshot as the request of a receiver dialect (docs/receivers.md): a pure function of the snapshot, the dialect and
 * the options. Read a JSON-form snapshot with {@link SnapshotPrompts#readJson(String)} so that arguments keep the exact
 * text of their objects; both snapshot forms then give the same request.
 */
public final class ReceiverRequests {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String CLAUDE_CLI = "CLAUDE_CLI";

    private ReceiverRequests() {
    }

    /** The request of {@code dialect} for a JSON-form snapshot. */
    public static ReceiverRequest build(JsonNode snapshot, Dialect dialect, RequestOptions options) {
        if (dialect == Dialect.OPENAI_CHAT) {
            return new ReceiverRequest(dialect, SnapshotPrompts.chatRequest(snapshot, options.model()), List.of());
        }
        return build(SnapshotUnits.of(snapshot), dialect, options);
    }

    /** The request of {@code dialect} for an Avro snapshot: the same as for its JSON form. */
    public static ReceiverRequest build(ContextSnapshot snapshot, Dialect dialect, RequestOptions options) {
        if (dialect == Dialect.OPENAI_CHAT) {
            return new ReceiverRequest(dialect, SnapshotPrompts.chatRequest(snapshot, options.model()), List.of());
        }
        return build(SnapshotUnits.of(snapshot), dialect, options);
    }

    /**
     * The kits' output line: for {@code openai-chat} exactly {@link SnapshotPrompts#forTarget(JsonNode, String)}'s
     * {@code {"snapshot_id", "target", "chat_request"}}; for the other dialects
     * {@code {"snapshot_id", "target", "dialect", "request", "id_map"}} ({@code id_map} only when ids changed); for a
     * CLAUDE_CLI snapshot the {@code cli_prompt} line whatever the dialect (rule R11).
     */
    public static ObjectNode forTarget(JsonNode snapshot, Dialect dialect, RequestOptions options) {
        if (dialect == Dialect.OPENAI_CHAT || CLAUDE_CLI.equals(snapshot.path("target").asText())) {
            return SnapshotPrompts.forTarget(snapshot, options.model());
        }
        return line(snapshot.path("snapshot_id").asText(), snapshot.path("target").asText(), build(snapshot, dialect, options));
    }

    /** {@link #forTarget(JsonNode, Dialect, RequestOptions)} for an Avro snapshot. */
    public static ObjectNode forTarget(ContextSnapshot snapshot, Dialect dialect, RequestOptions options) {
        if (dialect == Dialect.OPENAI_CHAT || CLAUDE_CLI.equals(snapshot.getTarget().name())) {
            return SnapshotPrompts.forTarget(snapshot, options.model());
        }
        return line(snapshot.getSnapshotId(), snapshot.getTarget().name(), build(snapshot, dialect, options));
    }

    private static ObjectNode line(String snapshotId, String target, ReceiverRequest request) {
        ObjectNode line = NODES.objectNode().put("snapshot_id", snapshotId).put("target", target)
                .put("dialect", request.dialect().name());
        line.set("request", request.body());
        if (!request.idMap().isEmpty()) {
            line.set("id_map", request.idMapJson());
        }
        return line;
    }

    private static ReceiverRequest build(SnapshotUnits s, Dialect dialect, RequestOptions options) {
        if (dialect == Dialect.OPENAI_RESPONSES) {
            return responses(s, options);
        } else if (dialect == Dialect.ANTHROPIC_MESSAGES) {
            return anthropic(s, options);
        } else if (dialect == Dialect.GEMINI) {
            return gemini(s);
        } else if (dialect == Dialect.ALTERNATING) {
            return alternating(s, options);
        } else if (dialect.isChatTemplate()) {
            return TemplateRequests.build(s, dialect, options);
        }
        throw new IllegalArgumentException("no mapping for dialect " + dialect);
    }

    /** OpenAI Responses API ("Conversation state", "Function calling"): instructions + input items. */
    private static ReceiverRequest responses(SnapshotUnits s, RequestOptions options) {
        CallIds ids = CallIds.batonN(s.calls(), CallIds.ANY);
        ObjectNode body = NODES.objectNode().put("model", options.model())
                .put("instructions", DialectTexts.systemText(s, false, true, false));
        ArrayNode input = body.putArray("input");
        for (Unit u : s.units()) {
            if (u instanceof Narration n) {
                message(input, "system", n.text());
            } else if (u instanceof User n) {
                message(input, "user", n.text());
            } else if (u instanceof Other o) {
                message(input, "assistant", DialectTexts.attributed(o.name(), o.text()));
            } else if (u instanceof Own o) {
                if (!o.text().isEmpty()) {
                    message(input, "assistant", o.text());
                }
                for (Call c : o.calls()) {
                    input.addObject().put("type", "function_call").put("call_id", ids.of(c)).put("name", c.tool())
                            .put("arguments", c.arguments());
                }
            } else if (u instanceof Result r) {
                input.addObject().put("type", "function_call_output").put("call_id", ids.of(r.call()))
                        .put("output", r.text());
            }
        }
        return new ReceiverRequest(Dialect.OPENAI_RESPONSES, body, ids.changed());
    }

    private static void message(ArrayNode input, String role, String text) {
        input.addObject().put("type", "message").put("role", role).put("content", text);
    }

    /** Anthropic Messages API ("Messages", "Tool use"): top-level system, strictly alternating messages of blocks. */
    private static ReceiverRequest anthropic(SnapshotUnits s, RequestOptions options) {
        CallIds ids = CallIds.batonN(s.calls(), CallIds.ANTHROPIC);
        ObjectNode body = NODES.objectNode().put("model", options.model()).put("max_tokens", options.maxTokens())
                .put("system", DialectTexts.systemText(s, true, true, false));
        ArrayNode messages = body.putArray("messages");
        for (Turn t : StrictTurns.of(s, false)) {
            ObjectNode m = messages.addObject().put("role", t.role() == Role.USER ? "user" : "assistant");
            ArrayNode content = m.putArray("content");
            for (Piece p : t.pieces()) {
                if (p instanceof Text x) {
                    content.addObject().put("type", "text").put("text", x.text());
                } else if (p instanceof CallPiece c) {
                    content.addObject().put("type", "tool_use").put("id", ids.of(c.call()))
                            .put("name", c.call().tool()).putRawValue("input", new RawValue(c.call().arguments()));
                } else if (p instanceof ResultPiece r) {
                    content.addObject().put("type", "tool_result")
                            .put("tool_use_id", ids.of(r.call())).put("content", r.text());
                }
            }
        }
        return new ReceiverRequest(Dialect.ANTHROPIC_MESSAGES, body, ids.changed());
    }

    /** Gemini API generateContent ("Function calling"): systemInstruction + user/model contents; no ids sent. */
    private static ReceiverRequest gemini(SnapshotUnits s) {
        ObjectNode body = NODES.objectNode();
        body.putObject("systemInstruction").putArray("parts").addObject()
                .put("text", DialectTexts.systemText(s, true, true, false));
        ArrayNode contents = body.putArray("contents");
        for (Turn t : StrictTurns.of(s, false)) {
            ObjectNode m = contents.addObject().put("role", t.role() == Role.USER ? "user" : "model");
            ArrayNode parts = m.putArray("parts");
            for (Piece p : t.pieces()) {
                if (p instanceof Text x) {
                    parts.addObject().put("text", x.text());
                } else if (p instanceof CallPiece c) {
                    parts.addObject().putObject("functionCall").put("name", c.call().tool())
                            .putRawValue("args", new RawValue(c.call().arguments()));
                } else if (p instanceof ResultPiece r) {
                    ObjectNode response = parts.addObject().putObject("functionResponse").put("name", r.call().tool());
                    response.putObject("response").put("output", r.text());
                }
            }
        }
        return new ReceiverRequest(Dialect.GEMINI, body, List.of());
    }

    /** {@code chat-template:alternating}: one system message, then strictly alternating single-string turns. */
    private static ReceiverRequest alternating(SnapshotUnits s, RequestOptions options) {
        ObjectNode body = NODES.objectNode().put("model", options.model());
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", DialectTexts.systemText(s, true, true, true));
        for (Turn t : StrictTurns.of(s, true)) {
            List<String> texts = t.pieces().stream().map(p -> ((Text) p).text()).toList();
            messages.addObject().put("role", t.role() == Role.USER ? "user" : "assistant")
                    .put("content", String.join("\n\n", texts));
        }
        return new ReceiverRequest(Dialect.ALTERNATING, body, List.of());
    }
}
