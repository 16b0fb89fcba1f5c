package dev.baton.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.processor.InboundEvent;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the integration tests compare the real application with: the bundled sample's lines and the snapshots the
 * engine renders from them directly (same decoder, input order, the default policy, settled at the end).
 */
public final class EngineRendering {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EngineRendering() {
    }

    /** The JSON line with provenance and content hash set to null. */
    static String withoutAudit(byte[] line) throws java.io.IOException {
        com.fasterxml.jackson.databind.node.ObjectNode n = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(line);
        n.putNull("provenance");
        n.putNull("content_sha256");
        return n.toString();
    }

    /** The engine alone: same decoder, same order, the contract's default policy, settled at the end. */
    public static Map<String, byte[]> renderDirectly(List<String> lines) {
        SessionEventDecoder decoder = SessionEventDecoder.json(1024 * 1024);
        SnapshotEncoder encoder = SnapshotEncoder.json();
        Policy policy = Policy.defaults();
        Map<String, SessionState> states = new LinkedHashMap<>();
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (String line : lines) {
            Decoded d = decoder.decode(bytes(key(line)), bytes(line));
            if (!d.accepted()) continue;
            InboundEvent ev = d.event();
            SessionState state = states.computeIfAbsent(ev.sessionKey(), k -> SessionState.empty());
            List<ReadyHandoff> ready = new ArrayList<>();
            if (ev.turn() != null) ready.addAll(state.offerTurn(ev.turn(), policy, 0).released());
            else if (ev.handoff() != null) ready.addAll(state.offerHandoff(ev.handoff(), ev.occurredAtMillis(), policy, 0).ready());
            else state.close(0);
            for (ReadyHandoff r : ready) put(out, encoder, ev.tenantId(), ev.sessionId(), state, r, policy);
        }
        for (Map.Entry<String, SessionState> e : states.entrySet()) {
            SessionKey ids = SessionKey.parse(e.getKey()).orElseThrow();
            for (ReadyHandoff r : e.getValue().settleAll(policy)) {
                put(out, encoder, ids.tenantId(), ids.sessionId(), e.getValue(), r, policy);
            }
        }
        return out;
    }

    static void put(Map<String, byte[]> out, SnapshotEncoder encoder, String tenant, String session,
            SessionState state, ReadyHandoff ready, Policy policy) {
        // as the processor renders an emitted snapshot: its print is remembered for the receiver's next one
        // (stats.stable_prefix_chars)
        var rendered = ContextEngine.renderWithPrint(tenant, session, state, ready, policy, Tokenizers.none(),
                LayoutCache.none());
        if (rendered.print() != null) state.rememberPrint(ready.handoff().toAgent(), rendered.print());
        var snapshot = rendered.snapshot();
        out.put(snapshot.snapshotId(), encoder.encode("baton.context-snapshots", snapshot));
    }

    public static List<String> sample() throws Exception {
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                EngineRendering.class.getResourceAsStream("/demo/sessions.jsonl")), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank()) lines.add(line);
            }
        }
        return lines;
    }

    static String key(String line) {
        try {
            JsonNode n = JSON.readTree(line);
            return SessionKey.format(n.path("tenant_id").asText(), n.path("session_id").asText());
        } catch (Exception e) {
            return "unreadable/line";
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
