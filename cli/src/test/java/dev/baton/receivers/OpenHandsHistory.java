package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * OpenHands histories, two shapes. <b>Event streams</b> ({@code tests/runtime/trajs/*.json}, the {@code history} of
 * evaluation outputs): events with {@code id}, {@code source}, and either {@code action} (with {@code args} and, for
 * function calling, {@code tool_call_metadata}) or {@code observation} (with {@code cause}, the id of its action).
 * <b>Flat histories</b> (resolver outputs): action and observation objects without ids, each observation right after
 * its action. Agent actions become calls (the action's {@code thought} is the agent's text before them), observations
 * their results ({@code exit_code} other than 0: ERROR); an observation that answers no call is a TOOL turn without a
 * call id; {@code finish} keeps a call without result.
 */
final class OpenHandsHistory {
    private static final Set<String> NOT_ARGUMENTS = Set.of("thought", "action", "is_confirmed", "action_risk",
            "keep_prompt", "kernel_init_code", "images_urls", "image_urls", "wait_for_response", "security_risk",
            "impl_source", "translated_ipython_code");

    private OpenHandsHistory() {
    }

    static boolean isEventStream(JsonNode history) {
        return history.size() > 0 && history.get(0).has("source");
    }

    static RecordedSession convertEvents(JsonNode events, String agent, SessionBuilder b) {
        Map<String, String> callOfAction = new HashMap<>();
        for (JsonNode e : events) {
            String source = e.path("source").asText();
            String id = e.path("id").asText();
            if (e.has("action")) {
                String action = e.get("action").asText();
                JsonNode args = e.path("args");
                if ("message".equals(action) || "system".equals(action)) {
                    String text = args.has("content") ? Texts.content(args.get("content")) : e.path("message").asText();
                    if ("user".equals(source)) b.user(text);
                    else if ("system".equals(action)) b.system(text);
                    else b.say(agent, text);
                } else if (!"agent".equals(source)) {
                    b.system(e.path("message").asText()); // e.g. the user side's recall of workspace context
                } else {
                    JsonNode meta = e.path("tool_call_metadata");
                    String callId = meta.path("tool_call_id").asText("e" + id);
                    String tool = meta.path("function_name").asText(action);
                    callOfAction.put(id, callId);
                    b.call(agent, args.path("thought").asText(""), callId, tool, arguments(meta, callId, args));
                }
            } else if (e.has("observation")) {
                String callId = callOfAction.remove(e.path("cause").asText());
                String text = e.has("content") ? Texts.content(e.get("content")) : e.path("message").asText();
                if (callId == null && text.isEmpty()) continue; // state changes: nothing was said or returned
                b.result(callId, text, failed(e));
            }
        }
        return b.build();
    }

    static RecordedSession convertFlat(JsonNode history, String agent, SessionBuilder b) {
        String pending = null;
        int index = 0;
        for (JsonNode e : history) {
            index++;
            if (e.has("action")) {
                String action = e.get("action").asText();
                if ("message".equals(action)) {
                    b.user(Texts.content(e.get("content")));
                    continue;
                }
                pending = "h" + index;
                b.call(agent, e.path("thought").asText(""), pending, action, argumentsOf(e).toString());
            } else if (e.has("observation")) {
                b.result(pending, Texts.content(e.get("content")), failed(e));
                pending = null;
            }
        }
        return b.build();
    }

    /** The arguments the model sent (from the recorded model response), else the action's own arguments. */
    private static String arguments(JsonNode meta, String callId, JsonNode args) {
        for (JsonNode choice : meta.path("model_response").path("choices")) {
            for (JsonNode c : choice.path("message").path("tool_calls")) {
                if (callId.equals(c.path("id").asText())) return c.path("function").path("arguments").asText();
            }
        }
        return argumentsOf(args).toString();
    }

    private static ObjectNode argumentsOf(JsonNode args) {
        ObjectNode out = SessionBuilder.JSON.createObjectNode();
        for (Map.Entry<String, JsonNode> f : args.properties()) {
            if (!NOT_ARGUMENTS.contains(f.getKey())) out.set(f.getKey(), f.getValue());
        }
        return out;
    }

    private static boolean failed(JsonNode observation) {
        if ("error".equals(observation.path("observation").asText())) return true;
        JsonNode code = observation.path("extras").path("metadata").path("exit_code");
        if (code.isMissingNode()) code = observation.path("exit_code");
        if (code.isMissingNode()) code = observation.path("extras").path("exit_code");
        return code.isNumber() && code.asInt() != 0 && code.asInt() != -1;
    }
}
