package dev.baton.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.avro.SessionEvent;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.SchemaRegistryClient;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** Valid session events as JSON trees, to be broken one field at a time and encoded as JSON or Avro. */
final class SessionEventFixtures {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String TOPIC = "baton.session-events";
    static final byte[] KEY = "t1/s1".getBytes(StandardCharsets.UTF_8);

    private SessionEventFixtures() {
    }

    static ObjectNode parse(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectNode assistantTurn() {
        return parse("""
                {"event_id":"e1","tenant_id":"t1","session_id":"s1","occurred_at":"2026-01-31T12:00:00Z",
                 "turn":{"seq":4,"agent":"claude","role":"ASSISTANT","text":"done",
                  "trail":[{"call_id":"c1","tool":"grep","arguments":{ "q" : "x", "n": 1.0 },"result":"hit","status":"OK"}],
                  "tool_calls":[{"call_id":"c2","tool":"read_file","arguments":{"path":"a"}}],
                  "provider":"anthropic","model":"m"}}""");
    }

    static ObjectNode toolTurn() {
        return parse("""
                {"event_id":"e2","tenant_id":"t1","session_id":"s1","occurred_at":"2026-01-31T12:00:01Z",
                 "turn":{"seq":5,"agent":"claude","role":"TOOL","text":"result","tool_call_id":"c2"}}""");
    }

    static ObjectNode userTurn() {
        return parse("""
                {"event_id":"e0","tenant_id":"t1","session_id":"s1","occurred_at":"2026-01-31T12:00:00Z",
                 "turn":{"seq":0,"agent":"claude","role":"USER","text":"please fix"}}""");
    }

    static ObjectNode handoff() {
        return parse("""
                {"event_id":"e3","tenant_id":"t1","session_id":"s1","occurred_at":"2026-01-31T12:00:02Z",
                 "handoff":{"handoff_id":"h1","from_agent":"claude","to_agent":"qwen","target":"LOCAL",
                  "brief":"take over","as_of_seq":5,"message_budget_chars":10000}}""");
    }

    static ObjectNode closed() {
        return parse("""
                {"event_id":"e4","tenant_id":"t1","session_id":"s1","occurred_at":"2026-01-31T12:00:03Z",
                 "closed":{"reason":"done"}}""");
    }

    static ObjectNode with(ObjectNode base, Consumer<ObjectNode> change) {
        ObjectNode copy = base.deepCopy();
        change.accept(copy);
        return copy;
    }

    static ObjectNode turnOf(ObjectNode event) {
        return (ObjectNode) event.get("turn");
    }

    /** The event in a wire format: JSON text, or Avro through the JSON reader and the codec. */
    enum Format {
        JSON, AVRO;

        byte[] encode(ObjectNode event, SchemaRegistryClient registry) {
            byte[] json = event.toString().getBytes(StandardCharsets.UTF_8);
            if (this == JSON) return json;
            return new ConfluentAvroCodec<>(registry, SessionEvent.class).serialize(TOPIC, AvroJson.read(json, SessionEvent.class));
        }

        SessionEventDecoder decoder(SchemaRegistryClient registry, int maxRecordBytes) {
            return this == JSON ? SessionEventDecoder.json(maxRecordBytes) : SessionEventDecoder.avro(registry, maxRecordBytes);
        }
    }
}
