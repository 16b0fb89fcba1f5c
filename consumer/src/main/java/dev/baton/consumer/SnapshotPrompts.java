package dev.baton.consumer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.Message;
import dev.baton.avro.Target;
import dev.baton.avro.ToolCall;

/**
 * What a consumer of {@code baton.context-snapshots} hands to the receiving agent (docs/contract.md, "Output:
 * ContextSnapshot"):
 * <ul>
 *   <li>LOCAL targets: an OpenAI-compatible chat-completions request body: the leading system message
 *       is {@code framing.system_prompt} and the {@code brick}, separated by a blank line, then the
 *       snapshot's {@code messages} one-to-one ({@code call_id} → {@code id}, {@code tool} →
 *       {@code function.name}, {@code arguments} → {@code function.arguments}, type {@code function});</li>
 *   <li>CLAUDE_CLI targets: the prompt the CLI agent receives: the same system prompt and brick,
 *       separated by a blank line (the CLI resumes its own conversation: no transcript).</li>
 * </ul>
 * The Python and Node kits in examples/consumers/ produce the same JSON (compared by
 * {@code ConsumerKitsIT}).
 *
 * <p>{@code function.arguments} is always a string, as OpenAI requires. The Avro form holds Baton's compact text
 * of the arguments object; the JSON form writes that same text verbatim as an object. Read a JSON-form line with
 * {@link #readJson(String)} to get that exact text back (number literals such as {@code 1e3} and escapes as the
 * producer wrote them), so both forms map to the same request; a tree read otherwise has its arguments objects
 * re-serialized by Jackson, which re-spells such literals.
 */
public final class SnapshotPrompts {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private SnapshotPrompts() {
    }

    /**
     * One JSON-form snapshot (a line of {@code baton backfill}'s output, or a record of a {@code baton.format=json}
     * topic) as a tree whose tool calls' {@code arguments} are the exact text of their objects in the line.
     */
    public static JsonNode readJson(String line) throws IOException {
        JsonNode snapshot = JSON.readTree(line);
        Iterator<String> texts = argumentsTexts(line).iterator();
        for (JsonNode m : snapshot.path("messages")) {
            for (JsonNode c : m.path("tool_calls")) {
                JsonNode args = c.path("arguments");
                if (!args.isObject()) {
                    continue;
                }
                // matched by order; a member named "arguments" elsewhere would break the match: checked
                String text = texts.hasNext() ? texts.next() : null;
                if (text == null || !JSON.readTree(text).equals(args)) {
                    throw new IOException("arguments of call " + c.path("call_id").asText() + " not found in the line");
                }
                ((ObjectNode) c).put("arguments", text);
            }
        }
        return snapshot;
    }

    /** The text of every object that is the value of a member named {@code arguments} (not inside one), in order. */
    private static List<String> argumentsTexts(String line) throws IOException {
        List<String> texts = new ArrayList<>();
        try (JsonParser p = JSON.getFactory().createParser(line)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME && "arguments".equals(p.currentName()) && p.nextToken() == JsonToken.START_OBJECT) {
                    int start = (int) p.currentTokenLocation().getCharOffset();
                    p.skipChildren();
                    texts.add(line.substring(start, (int) p.currentLocation().getCharOffset()));
                }
            }
        }
        return texts;
    }

    /** The leading system message / the CLI prompt: system prompt, blank line, brick (no blank line when no brick). */
    public static String systemText(String systemPrompt, String brick) {
        return brick == null || brick.isEmpty() ? systemPrompt : systemPrompt + "\n\n" + brick;
    }

    /** The chat-completions request body for {@code model} (a LOCAL snapshot; a CLAUDE_CLI one has no messages). */
    public static ObjectNode chatRequest(ContextSnapshot snapshot, String model) {
        return chatRequest(snapshot, model, false);
    }

    /**
     * {@link #chatRequest(ContextSnapshot, String)}; with {@code withLedger}, the snapshot's call ledger (when it has
     * one) as one more system message right after the leading one ({@link #ledgerText(JsonNode)}).
     */
    public static ObjectNode chatRequest(ContextSnapshot snapshot, String model, boolean withLedger) {
        ObjectNode body = NODES.objectNode();
        body.put("model", model);
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system")
                .put("content", systemText(snapshot.getFraming().getSystemPrompt(), snapshot.getBrick()));
        if (withLedger && snapshot.getCallLedger() != null) {
            try {
                messages.addObject().put("role", "system")
                        .put("content", ledgerText(JSON.readTree(snapshot.getCallLedger().toString())));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        for (Message m : snapshot.getMessages()) {
            ObjectNode out = messages.addObject();
            out.put("role", m.getRole());
            if (m.getName() != null) {
                out.put("name", m.getName());
            }
            out.put("content", m.getContent());
            addToolCalls(out, m.getToolCalls());
            if (m.getToolCallId() != null) {
                out.put("tool_call_id", m.getToolCallId());
            }
        }
        return body;
    }

    /** The same request from the JSON form of a snapshot (baton.format=json, or {@code baton backfill}'s output). */
    public static ObjectNode chatRequest(JsonNode snapshot, String model) {
        return chatRequest(snapshot, model, false);
    }

    /** {@link #chatRequest(JsonNode, String)}, with the call ledger as one more system message when asked. */
    public static ObjectNode chatRequest(JsonNode snapshot, String model, boolean withLedger) {
        ObjectNode body = NODES.objectNode();
        body.put("model", model);
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system")
                .put("content", systemText(snapshot.at("/framing/system_prompt").asText(), snapshot.path("brick").asText()));
        if (withLedger && snapshot.path("call_ledger").isObject()) {
            messages.addObject().put("role", "system").put("content", ledgerText(snapshot.get("call_ledger")));
        }
        for (JsonNode m : snapshot.path("messages")) {
            ObjectNode out = messages.addObject();
            out.put("role", m.get("role").asText());
            if (m.hasNonNull("name")) {
                out.put("name", m.get("name").asText());
            }
            out.put("content", m.get("content").asText());
            List<JsonNode> calls = m.has("tool_calls") ? List.copyOf(toList(m.get("tool_calls"))) : List.of();
            if (!calls.isEmpty()) {
                ArrayNode toolCalls = out.putArray("tool_calls");
                for (JsonNode c : calls) {
                    JsonNode args = c.get("arguments");
                    toolCalls.add(toolCall(c.get("call_id").asText(), c.get("tool").asText(),
                            args.isTextual() ? args.asText() : compact(args)));
                }
            }
            if (m.hasNonNull("tool_call_id")) {
                out.put("tool_call_id", m.get("tool_call_id").asText());
            }
        }
        return body;
    }

    /**
     * The call ledger (docs/rendering.md, "Call ledger") as the text of one system message, the same in the three
     * kits: a heading line, then one line per entry, newest first:
     * <pre>
     * [call ledger: 14 calls in 2 entries, newest first; 1 older entry (3 calls) dropped]
     * run_tests x12: newest seq 41 by coder, ERROR; 2 OK, 10 ERROR; args sha256 0d4bf368cf0c; narrated
     * </pre>
     * ({@code dropped} only when the ledger dropped entries; the counts list only statuses that occurred.)
     */
    public static String ledgerText(JsonNode ledger) {
        StringBuilder sb = new StringBuilder("[call ledger: ").append(ledger.path("calls").asLong()).append(" calls in ")
                .append(ledger.path("entries").size()).append(" entries, newest first");
        long dropped = ledger.path("dropped_entries").asLong();
        if (dropped > 0) {
            sb.append("; ").append(dropped).append(dropped == 1 ? " older entry (" : " older entries (")
                    .append(ledger.path("dropped_calls").asLong()).append(" calls) dropped");
        }
        sb.append(']');
        for (JsonNode e : ledger.path("entries")) {
            sb.append('\n').append(e.path("tool").asText()).append(" x").append(e.path("count").asLong())
                    .append(": newest seq ").append(e.path("seq").asLong()).append(" by ").append(e.path("agent").asText())
                    .append(", ").append(e.path("status").asText()).append(';');
            String sep = " ";
            for (String status : new String[] {"ok", "error", "cleared", "unanswered"}) {
                long n = e.path(status).asLong();
                if (n == 0) {
                    continue;
                }
                sb.append(sep).append(n).append(' ').append(status.toUpperCase(java.util.Locale.ROOT));
                sep = ", ";
            }
            sb.append("; args sha256 ").append(e.path("arguments_sha256").asText(), 0, 12).append("; ")
                    .append(e.path("visible").asText());
        }
        return sb.toString();
    }

    /** The prompt a CLI agent receives for a CLAUDE_CLI snapshot. */
    public static String cliPrompt(ContextSnapshot snapshot) {
        return systemText(snapshot.getFraming().getSystemPrompt(), snapshot.getBrick());
    }

    public static String cliPrompt(JsonNode snapshot) {
        return systemText(snapshot.at("/framing/system_prompt").asText(), snapshot.path("brick").asText());
    }

    /**
     * One line of the kits' output: {@code {"snapshot_id", "target", "chat_request"}} for LOCAL,
     * {@code {"snapshot_id", "target", "cli_prompt"}} for CLAUDE_CLI.
     */
    public static ObjectNode forTarget(ContextSnapshot snapshot, String model) {
        ObjectNode line = NODES.objectNode().put("snapshot_id", snapshot.getSnapshotId())
                .put("target", snapshot.getTarget().name());
        if (snapshot.getTarget() == Target.CLAUDE_CLI) {
            line.put("cli_prompt", cliPrompt(snapshot));
        } else {
            line.set("chat_request", chatRequest(snapshot, model));
        }
        return line;
    }

    public static ObjectNode forTarget(JsonNode snapshot, String model) {
        String target = snapshot.get("target").asText();
        ObjectNode line = NODES.objectNode().put("snapshot_id", snapshot.get("snapshot_id").asText()).put("target", target);
        if (target.equals(Target.CLAUDE_CLI.name())) {
            line.put("cli_prompt", cliPrompt(snapshot));
        } else {
            line.set("chat_request", chatRequest(snapshot, model));
        }
        return line;
    }

    private static void addToolCalls(ObjectNode out, List<ToolCall> calls) {
        if (calls == null || calls.isEmpty()) {
            return;
        }
        ArrayNode toolCalls = out.putArray("tool_calls");
        for (ToolCall c : calls) {
            toolCalls.add(toolCall(c.getCallId(), c.getTool(), c.getArguments()));
        }
    }

    private static ObjectNode toolCall(String id, String name, String arguments) {
        ObjectNode call = NODES.objectNode().put("id", id).put("type", "function");
        call.putObject("function").put("name", name).put("arguments", arguments);
        return call;
    }

    private static List<JsonNode> toList(JsonNode array) {
        List<JsonNode> out = new java.util.ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    private static String compact(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
