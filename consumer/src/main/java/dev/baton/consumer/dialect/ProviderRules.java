package dev.baton.consumer.dialect;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The structural rules each receiver enforces on a request, as docs/receivers.md states them, with where each comes
 * from. A request that breaks one is refused (HTTP 400, or a template's {@code raise_exception}) or loses a message.
 */
final class ProviderRules {

    private static final Pattern ANTHROPIC_ID = CallIds.ANTHROPIC;
    private static final Pattern MISTRAL_ID = CallIds.MISTRAL;

    private ProviderRules() {
    }

    static void check(Dialect dialect, JsonNode body, List<String> out) {
        if (dialect == Dialect.OPENAI_CHAT) {
            chat(body, out);
            adjacentToolMessages(body, false, out);
        } else if (dialect == Dialect.OPENAI_RESPONSES) {
            responses(body, out);
        } else if (dialect == Dialect.ANTHROPIC_MESSAGES) {
            anthropic(body, out);
        } else if (dialect == Dialect.GEMINI) {
            gemini(body, out);
        } else {
            template(dialect, body, out);
        }
    }

    /** OpenAI Chat Completions ("Create chat completion"): a leading system message; tool messages answer calls. */
    private static void chat(JsonNode body, List<String> out) {
        JsonNode messages = body.path("messages");
        if (messages.isEmpty() || !messages.get(0).path("role").asText().equals("system")) {
            out.add("chat: the first message is not the system message");
        }
    }

    /**
     * R5 for chat bodies (OpenAI "Function calling": each tool message answers a call of the assistant message before
     * it): an assistant message with N calls is followed by N tool messages answering them in order; with
     * {@code oneCall} (vLLM's Llama 3.1/3.2 JSON templates) every call message holds exactly one call.
     */
    private static void adjacentToolMessages(JsonNode body, boolean oneCall, List<String> out) {
        JsonNode messages = body.path("messages");
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            JsonNode calls = m.path("tool_calls");
            if (m.path("role").asText().equals("tool")) {
                JsonNode before = messages.get(i - 1 < 0 ? 0 : i - 1);
                if (i == 0 || !(before.path("role").asText().equals("tool") || before.has("tool_calls"))) {
                    out.add("R5: tool message " + i + " does not follow a call or another result");
                }
                continue;
            }
            if (calls.isEmpty()) {
                continue;
            }
            if (oneCall && calls.size() != 1) {
                out.add("llama3-json: message " + i + " has " + calls.size() + " tool calls (the template allows one)");
            }
            for (int k = 0; k < calls.size(); k++) {
                JsonNode r = messages.path(i + 1 + k);
                if (!r.path("role").asText().equals("tool")
                        || !r.path("tool_call_id").asText().equals(calls.get(k).path("id").asText())) {
                    out.add("R5: call " + calls.get(k).path("id").asText() + " of message " + i
                            + " is not answered by the tool message " + (k + 1) + " after it");
                }
            }
        }
    }

    /**
     * OpenAI Responses API ("Function calling", "Conversation state"): every function_call is answered by a
     * function_call_output with its call_id; a run of calls is followed by their outputs in the same order.
     */
    private static void responses(JsonNode body, List<String> out) {
        JsonNode input = body.path("input");
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < input.size(); i++) {
            if (!input.get(i).path("type").asText().equals("function_call")) {
                if (input.get(i).path("type").asText().equals("function_call_output")
                        && (i == 0 || !Set.of("function_call", "function_call_output").contains(input.get(i - 1).path("type").asText()))) {
                    out.add("R5: function_call_output " + i + " does not follow a function_call");
                }
                continue;
            }
            int end = i;
            while (end < input.size() && input.get(end).path("type").asText().equals("function_call")) {
                end++;
            }
            for (int k = i; k < end; k++) {
                String id = input.get(k).path("call_id").asText();
                if (!ids.add(id)) {
                    out.add("responses: call_id " + id + " is used twice");
                }
                JsonNode answer = input.path(end + (k - i));
                if (!answer.path("type").asText().equals("function_call_output") || !answer.path("call_id").asText().equals(id)) {
                    out.add("R5: function_call " + id + " is not answered right after its calls");
                }
            }
            i = end - 1;
        }
    }

    /**
     * Anthropic Messages API ("Messages" reference, "Implement tool use"): user and assistant strictly alternate,
     * starting and ending with user; tool_result blocks come first in the user turn after the tool_use blocks they
     * answer, one per tool_use; tool_use ids match {@code ^[a-zA-Z0-9_-]+$} (at most 64) and are unique; no empty
     * text block; the last user turn has text (a request ending on tool results continues the assistant turn).
     */
    private static void anthropic(JsonNode body, List<String> out) {
        JsonNode messages = body.path("messages");
        List<String> roles = new ArrayList<>();
        messages.forEach(m -> roles.add(m.path("role").asText()));
        alternation("anthropic", roles, "user", "assistant", out);
        Set<String> ids = new HashSet<>();
        List<String> pending = List.of();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode content = messages.get(i).path("content");
            List<String> uses = new ArrayList<>();
            int k = 0;
            for (JsonNode b : content) {
                String type = b.path("type").asText();
                if (type.equals("text") && b.path("text").asText().isEmpty()) {
                    out.add("anthropic: empty text block in message " + i);
                } else if (type.equals("tool_use")) {
                    String id = b.path("id").asText();
                    if (!ANTHROPIC_ID.matcher(id).matches()) {
                        out.add("anthropic: tool_use id " + id + " does not match ^[a-zA-Z0-9_-]{1,64}$");
                    }
                    if (!ids.add(id)) {
                        out.add("anthropic: tool_use id " + id + " is not unique");
                    }
                    uses.add(id);
                } else if (type.equals("tool_result")) {
                    if (k >= pending.size() || !b.path("tool_use_id").asText().equals(pending.get(k))) {
                        out.add("anthropic: tool_result " + b.path("tool_use_id").asText() + " in message " + i
                                + " is not in the position of the tool_use it answers");
                    }
                    k++;
                }
            }
            if (k < pending.size()) {
                out.add("anthropic: message " + i + " does not start with a tool_result for every tool_use of the"
                        + " assistant turn before it");
            }
            if (content.isEmpty()) {
                out.add("anthropic: message " + i + " has no content");
            }
            pending = messages.get(i).path("role").asText().equals("assistant") ? uses : List.of();
        }
        JsonNode last = messages.path(messages.size() - 1);
        boolean lastHasText = false;
        for (JsonNode b : last.path("content")) {
            lastHasText |= b.path("type").asText().equals("text");
        }
        if (!lastHasText) {
            out.add("anthropic: the last user turn has no text");
        }
    }

    /**
     * Gemini API ("Function calling"): contents alternate user and model, starting and ending with user; a model turn
     * with N functionCall parts follows a user turn and is followed by a user turn whose first N parts are the N
     * functionResponse parts, in order, with the same names; the request ends with an ordinary user prompt.
     */
    private static void gemini(JsonNode body, List<String> out) {
        JsonNode contents = body.path("contents");
        List<String> roles = new ArrayList<>();
        contents.forEach(m -> roles.add(m.path("role").asText()));
        alternation("gemini", roles, "user", "model", out);
        List<String> pending = List.of();
        for (int i = 0; i < contents.size(); i++) {
            List<String> calls = new ArrayList<>();
            int k = 0;
            for (JsonNode p : contents.get(i).path("parts")) {
                if (p.has("functionCall")) {
                    calls.add(p.at("/functionCall/name").asText());
                } else if (p.has("functionResponse")) {
                    if (k >= pending.size() || !p.at("/functionResponse/name").asText().equals(pending.get(k))) {
                        out.add("gemini: functionResponse " + p.at("/functionResponse/name").asText() + " in turn " + i
                                + " does not answer the call in its position");
                    }
                    k++;
                } else if (p.path("text").asText().isEmpty()) {
                    out.add("gemini: empty part in turn " + i);
                }
            }
            if (k < pending.size()) {
                out.add("gemini: turn " + i + " does not start with the " + pending.size() + " function responses"
                        + " of the model turn before it");
            }
            if (!calls.isEmpty() && (i == 0 || !contents.get(i - 1).path("role").asText().equals("user"))) {
                out.add("gemini: the functionCall turn " + i + " does not come right after a user turn");
            }
            pending = calls;
        }
        boolean lastHasText = false;
        for (JsonNode p : contents.path(contents.size() - 1).path("parts")) {
            lastHasText |= p.has("text");
        }
        if (!lastHasText) {
            out.add("gemini: the request does not end with a user prompt");
        }
    }

    /** The chat-template profiles of docs/receivers.md, checked against vLLM's and the publishers' templates. */
    private static void template(Dialect dialect, JsonNode body, List<String> out) {
        JsonNode messages = body.path("messages");
        chat(body, out);
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            if (!m.path("content").isTextual()) {
                out.add("template: content of message " + i + " is not a string");
            }
            if (m.has("name")) {
                out.add("template: message " + i + " has a name (templates do not render it)");
            }
            if (m.has("tool_calls") && (m.path("tool_calls").isEmpty() || !m.path("content").asText().isEmpty())) {
                out.add("template: message " + i + " has tool_calls that are empty or content beside them");
            }
        }
        boolean oneSystem = dialect == Dialect.SINGLE_SYSTEM || dialect == Dialect.MISTRAL_TOOLS || dialect == Dialect.ALTERNATING;
        if (oneSystem) {
            for (int i = 1; i < messages.size(); i++) {
                if (messages.get(i).path("role").asText().equals("system")) {
                    out.add(dialect + ": system message after the first (message " + i + ")");
                }
            }
        }
        if (dialect == Dialect.ALTERNATING) {
            // Llama-3-Instruct, Mistral-Instruct and Gemma-it templates: no tool role; roles alternate from user
            List<String> roles = new ArrayList<>();
            for (int i = 1; i < messages.size(); i++) {
                roles.add(messages.get(i).path("role").asText());
                if (messages.get(i).has("tool_calls")) {
                    out.add("alternating: message " + i + " has tool calls");
                }
            }
            alternation("alternating", roles, "user", "assistant", out);
            return;
        }
        adjacentToolMessages(body, dialect == Dialect.LLAMA3_JSON, out);
        if (dialect == Dialect.LLAMA3_JSON && !messages.path(1).path("role").asText().equals("user")) {
            // vLLM's Llama 3.1/3.2 JSON templates put the tool list into messages[1] as the user's first message
            out.add("llama3-json: the first message after the system message is not a user message");
        }
        if (dialect == Dialect.MISTRAL_TOOLS) {
            mistral(messages, out);
        }
    }

    /**
     * vLLM's tool_chat_template_mistral(.jinja, and _parallel): after the optional system message, the messages that
     * are neither tool results nor carry tool_calls must alternate user/assistant starting with user (the template's
     * own check, loop.index0 even exactly for user); call ids are 9 letters or digits (the template raises for shorter
     * ones and keeps the last 9 characters, so ids must be exactly 9 to stay unique); the last message is the user's.
     */
    private static void mistral(JsonNode messages, List<String> out) {
        int start = messages.path(0).path("role").asText().equals("system") ? 1 : 0;
        int index0 = 0;
        for (int i = start; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            if (m.path("role").asText().equals("tool") || m.path("role").asText().equals("tool_results") || m.has("tool_calls")) {
                continue;
            }
            if (m.path("role").asText().equals("user") != (index0 % 2 == 0)) {
                out.add("mistral-tools: message " + i + " breaks the template's user/assistant alternation");
            }
            index0++;
        }
        Set<String> ids = new HashSet<>();
        for (JsonNode m : messages) {
            for (JsonNode c : m.path("tool_calls")) {
                String id = c.path("id").asText();
                if (!MISTRAL_ID.matcher(id).matches()) {
                    out.add("mistral-tools: call id " + id + " is not 9 letters or digits");
                }
                if (!ids.add(id)) {
                    out.add("mistral-tools: call id " + id + " is not unique");
                }
            }
        }
        if (!messages.path(messages.size() - 1).path("role").asText().equals("user")) {
            out.add("mistral-tools: the last message is not a user message");
        }
    }

    /** Roles alternate {@code first}, {@code second}, …, starting and ending with {@code first}. */
    private static void alternation(String dialect, List<String> roles, String first, String second, List<String> out) {
        if (roles.isEmpty()) {
            out.add(dialect + ": no turns");
            return;
        }
        for (int i = 0; i < roles.size(); i++) {
            String expected = i % 2 == 0 ? first : second;
            if (!roles.get(i).equals(expected)) {
                out.add(dialect + ": turn " + i + " is " + roles.get(i) + ", strict alternation wants " + expected);
                return;
            }
        }
        if (!roles.get(roles.size() - 1).equals(first)) {
            out.add(dialect + ": the last turn is not " + first);
        }
    }
}
