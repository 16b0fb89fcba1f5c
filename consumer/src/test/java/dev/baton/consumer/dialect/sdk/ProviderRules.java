package dev.baton.consumer.dialect.sdk;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The providers' documented request rules that a JSON schema does not express, checked on the JSON an SDK sent.
 * Each rule names the page that states it. {@link #violations} lists what a request breaks (empty: none).
 */
final class ProviderRules {

    /** Anthropic's tool_use id pattern, as the API's 400 error states it ("String should match pattern"). */
    private static final Pattern ANTHROPIC_ID = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

    private ProviderRules() {
    }

    static List<String> violations(String dialect, JsonNode body) {
        List<String> out = new ArrayList<>();
        if (dialect.equals("openai-chat") || dialect.startsWith("chat-template:")) {
            chatCompletions(body, out);
        } else if (dialect.equals("openai-responses")) {
            responses(body, out);
        } else if (dialect.equals("anthropic-messages")) {
            anthropic(body, out);
        } else if (dialect.equals("gemini")) {
            gemini(body, out);
        } else {
            out.add("unknown dialect " + dialect);
        }
        return out;
    }

    /**
     * https://platform.openai.com/docs/guides/function-calling (and the API's 400 errors): "messages with role 'tool'
     * must be a response to a preceding message with 'tool_calls'", and "an assistant message with 'tool_calls' must
     * be followed by tool messages responding to each 'tool_call_id'".
     */
    private static void chatCompletions(JsonNode body, List<String> out) {
        JsonNode messages = body.path("messages");
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            if (!m.path("tool_calls").isArray() || m.path("tool_calls").isEmpty()) {
                // a tool message the loop reaches here is not in the run right after an assistant message's calls
                if (m.path("role").asText().equals("tool")) {
                    out.add("messages[" + i + "]: tool message without a preceding call " + m.path("tool_call_id"));
                }
                continue;
            }
            // a list, not a set: a snapshot of a run that reused an id within one message keeps it (openai-chat changes
            // no id) and answers both calls in order; the documented rule asks only that each call be answered
            List<String> open = new ArrayList<>();
            m.get("tool_calls").forEach(c -> open.add(c.path("id").asText()));
            int j = i + 1;
            for (; j < messages.size() && messages.get(j).path("role").asText().equals("tool"); j++) {
                if (!open.remove(messages.get(j).path("tool_call_id").asText())) {
                    out.add("messages[" + j + "]: tool_call_id " + messages.get(j).path("tool_call_id") + " answers no open call");
                }
            }
            if (!open.isEmpty()) {
                out.add("messages[" + i + "]: calls without a tool message right after: " + open);
            }
            i = j - 1;
        }
    }

    /**
     * https://platform.openai.com/docs/guides/function-calling (Responses): every function_call_output names the
     * call_id of an earlier function_call; every function_call is answered ("No tool output found for function call"),
     * and call ids are unique within the input.
     */
    private static void responses(JsonNode body, List<String> out) {
        Set<String> called = new HashSet<>();
        Set<String> open = new HashSet<>();
        JsonNode input = body.path("input");
        for (int i = 0; i < input.size(); i++) {
            JsonNode item = input.get(i);
            String type = item.path("type").asText();
            String id = item.path("call_id").asText();
            if (type.equals("function_call")) {
                if (!called.add(id)) {
                    out.add("input[" + i + "]: call_id " + id + " used twice");
                }
                open.add(id);
            } else if (type.equals("function_call_output") && !open.remove(id)) {
                out.add("input[" + i + "]: output for " + id + " without an earlier call");
            } else if (type.equals("message") && !Set.of("user", "assistant", "system", "developer").contains(item.path("role").asText())) {
                out.add("input[" + i + "]: role " + item.path("role"));
            }
        }
        if (!open.isEmpty()) {
            out.add("calls without output: " + open);
        }
    }

    /**
     * https://docs.anthropic.com/en/api/messages: roles user and assistant only, consecutive turns alternate, the
     * first is user (and Baton's request ends with user: docs/receivers.md); text blocks must be non-empty.
     * https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use: tool results immediately follow
     * their tool_use, in the next user message, before any text ("tool_result blocks must come FIRST"); every
     * tool_use has its result. Ids: {@link #ANTHROPIC_ID}, unique in the request.
     */
    private static void anthropic(JsonNode body, List<String> out) {
        if (!body.path("max_tokens").canConvertToInt() || body.path("max_tokens").asInt() < 1) {
            out.add("max_tokens missing or below 1");
        }
        JsonNode messages = body.path("messages");
        alternation(messages, "role", "user", "assistant", out);
        Set<String> ids = new HashSet<>();
        Set<String> open = new HashSet<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode content = messages.get(i).path("content");
            boolean user = messages.get(i).path("role").asText().equals("user");
            Set<String> answered = new HashSet<>();
            boolean textSeen = false;
            for (JsonNode block : content) {
                String type = block.path("type").asText();
                if (type.equals("text") && block.path("text").asText().isEmpty()) {
                    out.add("messages[" + i + "]: empty text block");
                }
                if (type.equals("tool_use")) {
                    String id = block.path("id").asText();
                    if (!ANTHROPIC_ID.matcher(id).matches() || !ids.add(id)) {
                        out.add("messages[" + i + "]: tool_use id " + id + " invalid or reused");
                    }
                } else if (type.equals("tool_result")) {
                    if (!user || textSeen || !open.contains(block.path("tool_use_id").asText())) {
                        out.add("messages[" + i + "]: tool_result " + block.path("tool_use_id") + " not first after its call");
                    }
                    answered.add(block.path("tool_use_id").asText());
                }
                textSeen |= !type.equals("tool_result");
            }
            if (user) {
                if (!answered.equals(open)) {
                    out.add("messages[" + i + "]: results " + answered + " do not answer the calls " + open);
                }
                open.clear();
            } else {
                content.forEach(b -> {
                    if (b.path("type").asText().equals("tool_use")) {
                        open.add(b.path("id").asText());
                    }
                });
            }
        }
    }

    /**
     * https://ai.google.dev/gemini-api/docs/function-calling: each model turn's function calls are answered by the
     * next user turn's function responses, in order and by name; https://ai.google.dev/api/caching#Content: roles
     * user and model; turns alternate starting and ending with user (docs/receivers.md, "Turns of strict dialects").
     */
    private static void gemini(JsonNode body, List<String> out) {
        JsonNode contents = body.path("contents");
        alternation(contents, "role", "user", "model", out);
        List<String> open = new ArrayList<>();
        for (int i = 0; i < contents.size(); i++) {
            JsonNode turn = contents.get(i);
            List<String> calls = new ArrayList<>();
            List<String> responses = new ArrayList<>();
            int leadingResponses = 0;
            boolean other = false;
            for (JsonNode part : turn.path("parts")) {
                if (part.size() != 1) {
                    out.add("contents[" + i + "]: a part with " + part.size() + " fields");
                }
                if (part.has("functionCall")) {
                    calls.add(part.get("functionCall").path("name").asText());
                } else if (part.has("functionResponse")) {
                    responses.add(part.get("functionResponse").path("name").asText());
                    leadingResponses += other ? 0 : 1;
                } else {
                    other = true;
                }
            }
            if (turn.path("role").asText().equals("user")) {
                if (!responses.equals(open) || leadingResponses != responses.size()) {
                    out.add("contents[" + i + "]: responses " + responses + " do not answer the calls " + open + " first");
                }
                open = List.of();
            } else {
                open = calls;
            }
        }
    }

    /** Two roles in turn, starting and ending with {@code first}. */
    private static void alternation(JsonNode turns, String field, String first, String second, List<String> out) {
        if (turns.isEmpty()) {
            out.add("no turns");
            return;
        }
        for (int i = 0; i < turns.size(); i++) {
            String want = i % 2 == 0 ? first : second;
            if (!turns.get(i).path(field).asText().equals(want)) {
                out.add("turn " + i + " is " + turns.get(i).path(field) + ", want " + want);
            }
        }
        if (turns.size() % 2 == 0) {
            out.add("the last turn is not " + first);
        }
    }
}
