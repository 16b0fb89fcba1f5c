package dev.baton.consumer.dialect;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.Message;
import dev.baton.avro.ToolCall;

/**
 * A snapshot read as the units of docs/receivers.md ("Shared steps"): narration, user, other, own and result, with
 * each result matched to its call. Both snapshot forms read to the same units, so every dialect maps them the same.
 *
 * <p>A unit whose text is empty and that has no calls is left out: there is nothing of it to send, and several
 * receivers refuse empty blocks (docs/receivers.md, "Shared steps").
 */
record SnapshotUnits(String snapshotId, String target, String toAgent, String systemPrompt, String brick,
        List<Unit> units, List<Call> calls) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One call of the receiver's own: its 0-based {@code index} in the request, id, tool and arguments text. */
    record Call(int index, String id, String tool, String arguments) {
    }

    sealed interface Unit permits Narration, User, Other, Own, Result {
    }

    record Narration(String text) implements Unit {
    }

    record User(String text) implements Unit {
    }

    record Other(String name, String text) implements Unit {
    }

    record Own(String text, List<Call> calls) implements Unit {
    }

    record Result(String text, Call call) implements Unit {
    }

    boolean has(Class<? extends Unit> kind) {
        return units.stream().anyMatch(kind::isInstance);
    }

    static SnapshotUnits of(JsonNode snapshot) {
        Reader r = new Reader();
        for (JsonNode m : snapshot.path("messages")) {
            List<String[]> calls = new ArrayList<>();
            for (JsonNode c : m.path("tool_calls")) {
                JsonNode args = c.path("arguments");
                calls.add(new String[] {c.path("call_id").asText(), c.path("tool").asText(),
                    args.isTextual() ? args.asText() : compact(args)});
            }
            r.add(m.path("role").asText(), text(m, "name"), m.path("content").asText(""), calls, text(m, "tool_call_id"));
        }
        return r.finish(snapshot.path("snapshot_id").asText(), snapshot.path("target").asText(),
                snapshot.path("to_agent").asText(), snapshot.at("/framing/system_prompt").asText(),
                snapshot.path("brick").asText(""));
    }

    static SnapshotUnits of(ContextSnapshot snapshot) {
        Reader r = new Reader();
        for (Message m : snapshot.getMessages()) {
            List<String[]> calls = new ArrayList<>();
            if (m.getToolCalls() != null) {
                for (ToolCall c : m.getToolCalls()) {
                    calls.add(new String[] {c.getCallId(), c.getTool(), c.getArguments()});
                }
            }
            r.add(m.getRole(), m.getName(), m.getContent() == null ? "" : m.getContent(), calls, m.getToolCallId());
        }
        return r.finish(snapshot.getSnapshotId(), snapshot.getTarget().name(), snapshot.getToAgent(),
                snapshot.getFraming().getSystemPrompt(), snapshot.getBrick() == null ? "" : snapshot.getBrick());
    }

    private static String text(JsonNode m, String field) {
        JsonNode v = m.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static String compact(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads messages in order; a result is matched to its call within the assistant message that precedes it. */
    private static final class Reader {
        private final List<Unit> units = new ArrayList<>();
        private final List<Call> calls = new ArrayList<>();
        private List<Call> lastCalls = List.of();
        private final List<Call> answered = new ArrayList<>();

        void add(String role, String name, String content, List<String[]> rawCalls, String toolCallId) {
            switch (role) {
                case "system" -> unit(new Narration(content), content);
                case "user" -> unit(new User(content), content);
                case "assistant" -> {
                    if (name != null) {
                        if (!rawCalls.isEmpty()) {
                            // R1: another agent's calls are narrated by Baton; a named message never carries calls
                            throw new IllegalArgumentException("assistant message of " + name + " carries tool calls:"
                                    + " only the receiver's own (unnamed) assistant messages do");
                        }
                        unit(new Other(name, content), content);
                    } else {
                        List<Call> own = new ArrayList<>();
                        for (String[] c : rawCalls) {
                            Call call = new Call(calls.size(), c[0], c[1], c[2]);
                            calls.add(call);
                            own.add(call);
                        }
                        if (!own.isEmpty()) {
                            lastCalls = List.copyOf(own);
                            answered.clear();
                        }
                        if (!own.isEmpty() || !content.isEmpty()) {
                            units.add(new Own(content, List.copyOf(own)));
                        }
                    }
                }
                case "tool" -> units.add(new Result(content, matchCall(toolCallId)));
                default -> throw new IllegalArgumentException("unknown message role " + role);
            }
        }

        private void unit(Unit u, String content) {
            if (!content.isEmpty()) {
                units.add(u);
            }
        }

        /** The first call of the preceding assistant message with this id that no earlier result answered (R5). */
        private Call matchCall(String id) {
            for (Call c : lastCalls) {
                if (c.id().equals(id) && !answered.contains(c)) {
                    answered.add(c);
                    return c;
                }
            }
            throw new IllegalArgumentException("tool message answers " + id
                    + ", which is no unanswered call of the assistant message before it");
        }

        SnapshotUnits finish(String snapshotId, String target, String toAgent, String systemPrompt, String brick) {
            return new SnapshotUnits(snapshotId, target, toAgent, systemPrompt, brick, List.copyOf(units), List.copyOf(calls));
        }
    }
}
