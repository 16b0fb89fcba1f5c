package dev.baton.replay.importer;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;
import dev.baton.replay.importer.ImportReport.Kind;

/**
 * OpenTelemetry traces of agent runs (OTLP JSON, the collector's file exporter: one {@code ExportTraceServiceRequest}
 * per line) following the GenAI semantic conventions → Baton sessions (docs/import.md, "OpenTelemetry GenAI traces").
 *
 * <ul>
 *   <li>Session: the span's {@code gen_ai.conversation.id}, or its nearest ancestor's, else the trace id.</li>
 *   <li>Turns come from {@code chat} spans (also {@code text_completion}, {@code generate_content}), in start-time
 *       order: their input messages ({@code gen_ai.input.messages}, or the older {@code gen_ai.system.message},
 *       {@code gen_ai.user.message}, {@code gen_ai.assistant.message}, {@code gen_ai.tool.message} events) that
 *       the session has not seen yet, then their output messages ({@code gen_ai.output.messages}, or
 *       {@code gen_ai.choice} events). A call's history is usually sent again with every call: when the inputs begin
 *       with the messages already imported, only the rest is new.</li>
 *   <li>An assistant message's tool calls become the trail of its turn; each result comes from the
 *       {@code execute_tool} span with the same {@code gen_ai.tool.call.id} ({@code gen_ai.tool.call.result}, status
 *       ERROR when the span's status is an error), else from a tool message answering it. An {@code execute_tool}
 *       span that answers no recorded call is a turn of its own with one trail step.</li>
 *   <li>Agent of an assistant turn: with {@code --agent-name-from agent} the {@code gen_ai.agent.name} of the span or
 *       its nearest ancestor (an {@code invoke_agent} span), else the model; with {@code model} (the default) the
 *       request model (else the response model), else the agent name.</li>
 * </ul>
 */
final class OtelGenAiConverter {

    private static final Set<String> CHAT_OPERATIONS = Set.of("chat", "text_completion", "generate_content");
    private static final Set<String> MESSAGE_EVENTS = Set.of("gen_ai.system.message", "gen_ai.user.message",
            "gen_ai.assistant.message", "gen_ai.tool.message");

    private OtelGenAiConverter() {
    }

    static String validate(JsonNode root) {
        if (root == null || !root.isObject()) return "not a JSON object (an OTLP trace export is {\"resourceSpans\": [...]})";
        JsonNode rs = root.has("resourceSpans") ? root.get("resourceSpans") : root.get("resource_spans");
        if (rs == null || !rs.isArray()) {
            return root.has("steps") ? "no \"resourceSpans\": this looks like an ATIF trajectory (try --from atif)"
                    : root.has("messages") ? "no \"resourceSpans\": this looks like a chat log (try --from openai-chat)"
                    : "no \"resourceSpans\" array: not an OTLP JSON trace export";
        }
        return null;
    }

    /** One span, its attributes flattened to JSON values. */
    static final class Span {
        String traceId;
        String spanId;
        String parentId;
        String name;
        long startNanos;
        boolean error;
        final Map<String, JsonNode> attributes = new HashMap<>();
        final List<Event> events = new ArrayList<>();
        String source;
        Span parent;

        String attr(String key) {
            JsonNode v = attributes.get(key);
            return v == null || v.isNull() ? null : v.isTextual() ? v.textValue() : v.toString();
        }

        String operation() {
            String op = attr("gen_ai.operation.name");
            return op == null ? "" : op.toLowerCase(Locale.ROOT);
        }

        /** The attribute on this span or its nearest ancestor that has it. */
        String inherited(String key) {
            for (Span s = this; s != null; s = s.parent) {
                String v = s.attr(key);
                if (v != null && !v.isBlank()) return v;
            }
            return null;
        }
    }

    record Event(String name, long timeNanos, Map<String, JsonNode> attributes) {
    }

    /** A message in the conventions' form: a role and parts. */
    record Message(String role, List<JsonNode> parts) {
        /** The text parts joined by new lines; reasoning parts too when {@code reasoning}. */
        String text(Convert c, boolean reasoning) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode p : parts) {
                String type = RawJson.string(p, "type");
                if (type != null && !type.equals("text") && !(reasoning && type.equals("reasoning"))) continue;
                String t = p.has("content") ? c.content(p.get("content")) : c.content(p.get("text"));
                if (t.isEmpty()) continue;
                if (sb.length() > 0) sb.append('\n');
                sb.append(t);
            }
            return sb.toString();
        }

        /** Role and text: what makes two messages the same for the history check. */
        String fingerprint() {
            return role + "\u0000" + RawJson.write(JsonNodeFactory.instance.arrayNode().addAll(parts));
        }
    }

    static void convert(List<Doc> docs, ImportSettings settings, ImportReport report, EventWriter writer)
            throws IOException {
        List<Span> spans = new ArrayList<>();
        for (Doc d : docs) read(d, spans, report);
        Map<String, Span> byId = new HashMap<>();
        for (Span s : spans) byId.putIfAbsent(s.traceId + "/" + s.spanId, s);
        for (Span s : spans) {
            if (s.parentId != null && !s.parentId.isEmpty()) s.parent = byId.get(s.traceId + "/" + s.parentId);
        }
        // sessions in the order of their first span
        Map<String, List<Span>> sessions = new LinkedHashMap<>();
        spans.sort(Comparator.comparingLong((Span s) -> s.startNanos));
        for (Span s : spans) {
            String conversation = s.inherited("gen_ai.conversation.id");
            sessions.computeIfAbsent(conversation != null ? conversation : s.traceId, k -> new ArrayList<>()).add(s);
        }
        Set<String> taken = new HashSet<>();
        for (Map.Entry<String, List<Span>> e : sessions.entrySet()) {
            String raw = e.getKey();
            String id = Names.id(raw);
            String source = e.getValue().get(0).source;
            if (!id.equals(raw)) report.mappedOnce(source, Kind.ID_MAPPED, "session id", raw, id);
            if (!taken.add(id)) {
                String base = id;
                int n = 2;
                while (!taken.add(id = Names.withSuffix(base, ":" + n))) n++;
                report.add(source, Kind.SESSION_RENAMED, "session id " + Texts.quote(base) + " is used twice: "
                        + Texts.quote(id));
            }
            ImportedSession session = new ImportedSession(id, source);
            new SessionBuilder(settings, report, session).build(e.getValue());
            writer.write(session);
        }
    }

    // ------------------------------------------------------------------------------------------------ OTLP JSON

    private static void read(Doc d, List<Span> out, ImportReport report) {
        JsonNode root = d.tree;
        JsonNode rs = root.has("resourceSpans") ? root.get("resourceSpans") : root.get("resource_spans");
        for (JsonNode resource : rs) {
            JsonNode scopes = resource.has("scopeSpans") ? resource.get("scopeSpans") : resource.get("scope_spans");
            if (scopes == null || !scopes.isArray()) continue;
            for (JsonNode scope : scopes) {
                JsonNode list = scope.get("spans");
                if (list == null || !list.isArray()) continue;
                int i = 0;
                for (JsonNode js : list) {
                    Span s = new Span();
                    s.source = d.source + " span " + i++;
                    s.traceId = text(js, "traceId", "trace_id");
                    s.spanId = text(js, "spanId", "span_id");
                    s.parentId = text(js, "parentSpanId", "parent_span_id");
                    s.name = RawJson.string(js, "name");
                    Long start = RawJson.asLong(js.has("startTimeUnixNano") ? js.get("startTimeUnixNano")
                            : js.get("start_time_unix_nano"));
                    if (start == null && js.path("startTimeUnixNano").isTextual()) {
                        start = parseLong(js.get("startTimeUnixNano").textValue());
                    }
                    s.startNanos = start == null ? 0 : start;
                    JsonNode status = js.get("status");
                    if (status != null) {
                        JsonNode code = status.get("code");
                        Long n = RawJson.asLong(code);
                        s.error = code != null && ((n != null && n == 2) || "STATUS_CODE_ERROR".equals(code.asText()));
                    }
                    attributes(js.get("attributes"), s.attributes);
                    JsonNode events = js.get("events");
                    if (events != null && events.isArray()) {
                        for (JsonNode ev : events) {
                            Map<String, JsonNode> a = new HashMap<>();
                            attributes(ev.get("attributes"), a);
                            Long t = RawJson.asLong(ev.get("timeUnixNano"));
                            if (t == null && ev.path("timeUnixNano").isTextual()) t = parseLong(ev.get("timeUnixNano").textValue());
                            s.events.add(new Event(RawJson.string(ev, "name"), t == null ? s.startNanos : t, a));
                        }
                    }
                    if (s.traceId == null || s.traceId.isEmpty()) {
                        report.add(s.source, Kind.REJECTED, "span without a traceId: skipped");
                        continue;
                    }
                    out.add(s);
                }
            }
        }
    }

    private static Long parseLong(String s) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String text(JsonNode o, String a, String b) {
        String v = RawJson.string(o, a);
        return v != null ? v : RawJson.string(o, b);
    }

    /** OTLP {@code [{key, value: {stringValue|intValue|…}}]} → key → plain JSON value. */
    private static void attributes(JsonNode list, Map<String, JsonNode> out) {
        if (list == null || !list.isArray()) return;
        for (JsonNode kv : list) {
            String key = RawJson.string(kv, "key");
            if (key != null) out.put(key, anyValue(kv.get("value")));
        }
    }

    static JsonNode anyValue(JsonNode v) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (v == null || !v.isObject()) return f.nullNode();
        if (v.has("stringValue")) return v.get("stringValue");
        if (v.has("boolValue")) return v.get("boolValue");
        if (v.has("intValue")) {
            Long n = RawJson.asLong(v.get("intValue"));
            if (n == null && v.get("intValue").isTextual()) n = parseLong(v.get("intValue").textValue());
            return n == null ? v.get("intValue") : f.numberNode(n);
        }
        if (v.has("doubleValue")) return v.get("doubleValue");
        if (v.has("arrayValue")) {
            ArrayNode a = f.arrayNode();
            JsonNode values = v.get("arrayValue").get("values");
            if (values != null) values.forEach(x -> a.add(anyValue(x)));
            return a;
        }
        if (v.has("kvlistValue")) {
            ObjectNode o = f.objectNode();
            JsonNode values = v.get("kvlistValue").get("values");
            if (values != null) {
                for (JsonNode kv : values) {
                    String key = RawJson.string(kv, "key");
                    if (key != null) o.set(key, anyValue(kv.get("value")));
                }
            }
            return o;
        }
        if (v.has("bytesValue")) return v.get("bytesValue");
        return f.nullNode();
    }

    // ------------------------------------------------------------------------------------------------ turns

    /** The turns of one session, from its spans in start-time order. */
    private static final class SessionBuilder {
        private final ImportSettings settings;
        private final ImportReport report;
        private final ImportedSession session;
        private final Convert c;
        private final List<String> history = new ArrayList<>();
        /** Results by the call id recorded in the trace: from execute_tool spans, else tool messages. */
        private final Map<String, Result> results = new HashMap<>();
        private final Set<String> answered = new HashSet<>();

        record Result(String text, StepStatus status) {
        }

        SessionBuilder(ImportSettings settings, ImportReport report, ImportedSession session) {
            this.settings = settings;
            this.report = report;
            this.session = session;
            this.c = new Convert(settings, report, session.source);
        }

        void build(List<Span> spans) {
            for (Span s : spans) {
                if (!s.operation().equals("execute_tool")) continue;
                String id = s.attr("gen_ai.tool.call.id");
                if (id != null) {
                    results.putIfAbsent(id, new Result(c.content(s.attributes.get("gen_ai.tool.call.result")),
                            s.error ? StepStatus.ERROR : StepStatus.OK));
                }
            }
            for (Span s : spans) {
                for (Message m : inputs(s)) {
                    if (!m.role().equals("tool")) continue;
                    for (JsonNode p : m.parts()) {
                        if ("tool_call_response".equals(RawJson.string(p, "type")) && RawJson.stringOrNumber(p, "id") != null) {
                            results.putIfAbsent(RawJson.stringOrNumber(p, "id"), new Result(c.content(p.get("response")),
                                    StepStatus.OK));
                        }
                    }
                }
            }
            for (Span s : spans) {
                if (CHAT_OPERATIONS.contains(s.operation())) chat(s);
                else if (s.operation().equals("execute_tool")) tool(s);
            }
            c.reportRepairs();
        }

        private void chat(Span s) {
            List<Message> inputs = inputs(s);
            List<String> prints = inputs.stream().map(Message::fingerprint).toList();
            boolean resent = prints.size() >= history.size() && prints.subList(0, history.size()).equals(history);
            List<Message> fresh = resent ? inputs.subList(history.size(), inputs.size()) : inputs;
            if (resent) history.clear();
            history.addAll(prints);
            Instant at = Instant.ofEpochSecond(0, s.startNanos);
            for (Message m : fresh) message(s, m, at);
            for (Message m : outputs(s)) {
                message(s, m, at);
                history.add(m.fingerprint());
            }
        }

        private void message(Span s, Message m, Instant at) {
            String text = m.text(c, settings.includeReasoning());
            switch (m.role()) {
                case "system" -> add(turn("system", Role.SYSTEM, text, at, s, null));
                case "user" -> add(turn("user", Role.USER, text, at, s, null));
                case "tool" -> {
                    // results are in the trails of the calls they answer; one that answers nothing is a TOOL turn
                    for (JsonNode p : m.parts()) {
                        String id = RawJson.stringOrNumber(p, "id");
                        if (id != null && answered.contains(id)) continue;
                        if (id != null && !"tool_call_response".equals(RawJson.string(p, "type"))) continue;
                        ImportedTurn t = turn(agent(s), Role.TOOL, c.content(p.get("response")), at, s, null);
                        if (id != null) t.toolCallId = Names.id(id);
                        report.add(s.source, Kind.RESULT_WITHOUT_CALL, "tool message answering no recorded call"
                                + (id == null ? "" : " (" + Texts.quote(id) + ")") + ": a TOOL turn");
                        add(t);
                    }
                }
                default -> {
                    // as for ATIF steps: what the agent said comes before what it did, in a turn of its own
                    String model = model(s);
                    if (!text.isEmpty()) add(turn(agent(s), Role.ASSISTANT, text, at, s, model));
                    ImportedTurn t = turn(agent(s), Role.ASSISTANT, "", at, s, model);
                    Convert.CallIds ids = c.new CallIds();
                    int k = 0;
                    for (JsonNode p : m.parts()) {
                        if (!"tool_call".equals(RawJson.string(p, "type"))) continue;
                        String raw = RawJson.stringOrNumber(p, "id");
                        String where = " tool_call " + k;
                        String id = ids.take(raw, "span-" + s.spanId + "-call-" + k++, where);
                        Result r = raw == null ? null : results.get(raw);
                        if (r == null) {
                            report.add(s.source, Kind.CALL_WITHOUT_RESULT, "call " + Texts.quote(id) + " of "
                                    + RawJson.string(p, "name") + " has no execute_tool span or tool message: no result recorded");
                        }
                        if (raw != null) answered.add(raw);
                        t.trail.add(new ImportedTurn.Step(id, c.tool(RawJson.string(p, "name"), where),
                                c.arguments(p.get("arguments"), where), r == null ? null : r.text(),
                                r == null ? StepStatus.OK : r.status()));
                    }
                    if (!t.trail.isEmpty()) add(t);
                }
            }
        }

        /** An execute_tool span that answers no call of a chat span's output: a turn with one trail step. */
        private void tool(Span s) {
            String raw = s.attr("gen_ai.tool.call.id");
            if (raw != null && answered.contains(raw)) return;
            if (raw != null) answered.add(raw);
            ImportedTurn t = turn(agent(s), Role.ASSISTANT, "", Instant.ofEpochSecond(0, s.startNanos), s, model(s));
            String id = c.new CallIds().take(raw, "span-" + s.spanId, "");
            t.trail.add(new ImportedTurn.Step(id, c.tool(s.attr("gen_ai.tool.name"), ""),
                    c.arguments(s.attributes.get("gen_ai.tool.call.arguments"), ""),
                    c.content(s.attributes.get("gen_ai.tool.call.result")), s.error ? StepStatus.ERROR : StepStatus.OK));
            add(t);
        }

        private void add(ImportedTurn t) {
            session.turns.add(t);
        }

        private String model(Span s) {
            // the model asked for first: a response model often carries a dated version that varies between calls
            String m = s.inherited("gen_ai.request.model");
            return m != null ? m : s.attr("gen_ai.response.model");
        }

        private String agent(Span s) {
            String agentName = s.inherited("gen_ai.agent.name");
            String model = model(s);
            String first = settings.agentNameFrom() == ImportSettings.AgentNameFrom.AGENT ? agentName : model;
            String second = settings.agentNameFrom() == ImportSettings.AgentNameFrom.AGENT ? model : agentName;
            return c.agent(first != null ? first : second, "assistant");
        }

        private ImportedTurn turn(String agent, Role role, String text, Instant at, Span s, String model) {
            ImportedTurn t = new ImportedTurn(agent, role, text);
            t.occurredAt = s.startNanos == 0 ? null : at;
            t.model = model;
            t.origin = s.source;
            return t;
        }

        // ---------------------------------------------------------------------------------------- messages

        /** gen_ai.input.messages (and gen_ai.system_instructions first), else the older message events. */
        private List<Message> inputs(Span s) {
            List<Message> out = new ArrayList<>();
            JsonNode system = json(s.attributes.get("gen_ai.system_instructions"));
            if (system != null && system.isArray() && system.size() > 0) {
                List<JsonNode> parts = new ArrayList<>();
                system.forEach(parts::add);
                out.add(new Message("system", parts));
            }
            JsonNode in = json(s.attributes.get("gen_ai.input.messages"));
            if (in != null && in.isArray()) {
                in.forEach(m -> out.add(message(m)));
                return out;
            }
            for (Event e : s.events) {
                if (e.name() == null || !MESSAGE_EVENTS.contains(e.name())) continue;
                String role = e.name().substring("gen_ai.".length(), e.name().length() - ".message".length());
                out.add(legacy(role, e.attributes()));
            }
            return out;
        }

        private List<Message> outputs(Span s) {
            List<Message> out = new ArrayList<>();
            JsonNode o = json(s.attributes.get("gen_ai.output.messages"));
            if (o != null && o.isArray()) {
                o.forEach(m -> out.add(message(m)));
                return out;
            }
            for (Event e : s.events) {
                if (!"gen_ai.choice".equals(e.name())) continue;
                JsonNode message = json(e.attributes().get("message"));
                Map<String, JsonNode> a = new HashMap<>(e.attributes());
                if (message != null && message.isObject()) message.properties().forEach(f -> a.putIfAbsent(f.getKey(), f.getValue()));
                out.add(legacy("assistant", a));
            }
            return out;
        }

        /** A {role, parts} message; a {role, content} one (older instrumentations) read as one text part. */
        private Message message(JsonNode m) {
            String role = RawJson.string(m, "role");
            List<JsonNode> parts = new ArrayList<>();
            JsonNode ps = m.get("parts");
            if (ps != null && ps.isArray()) ps.forEach(parts::add);
            else if (m.has("content")) parts.add(textPart(c.content(m.get("content"))));
            return new Message(role == null ? "user" : role.toLowerCase(Locale.ROOT), parts);
        }

        /** An older event ({@code content}, {@code tool_calls}, {@code id}) in the parts form. */
        private Message legacy(String role, Map<String, JsonNode> a) {
            List<JsonNode> parts = new ArrayList<>();
            JsonNodeFactory f = JsonNodeFactory.instance;
            if (role.equals("tool")) {
                ObjectNode p = f.objectNode().put("type", "tool_call_response");
                JsonNode id = a.get("id");
                if (id != null && !id.isNull()) p.put("id", id.asText());
                p.set("response", a.getOrDefault("content", f.nullNode()));
                parts.add(p);
                return new Message(role, parts);
            }
            String text = c.content(a.get("content"));
            if (!text.isEmpty()) parts.add(textPart(text));
            JsonNode calls = json(a.get("tool_calls"));
            if (calls != null && calls.isArray()) {
                for (JsonNode call : calls) {
                    JsonNode fn = call.path("function");
                    ObjectNode p = f.objectNode().put("type", "tool_call");
                    if (call.has("id")) p.put("id", call.get("id").asText());
                    p.put("name", RawJson.string(fn, "name"));
                    p.set("arguments", fn.get("arguments"));
                    parts.add(p);
                }
            }
            return new Message(role, parts);
        }

        private static JsonNode textPart(String text) {
            return JsonNodeFactory.instance.objectNode().put("type", "text").put("content", text);
        }

        /** A JSON value, or a string holding one (the conventions record structured attributes as JSON strings). */
        private JsonNode json(JsonNode v) {
            if (v == null || v.isNull()) return null;
            if (v.isTextual()) {
                String t = v.textValue().trim();
                if (t.startsWith("[") || t.startsWith("{")) {
                    try {
                        return RawJson.readOne(t, new RawJson.Repairs());
                    } catch (IOException e) {
                        report.add(session.source, Kind.MAPPED, "an attribute holding JSON cannot be read: ignored");
                        return null;
                    }
                }
            }
            return v;
        }
    }
}
