package dev.baton.replay.importer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.processor.InboundEvent;

/**
 * Test fixture: runs the importer into memory, reads every line back through Baton's real JSON decoder (the one
 * {@code baton backfill} and the live topic use), and renders sessions through the engine.
 */
final class Imported {
    final List<byte[]> lines = new ArrayList<>();
    final ImportReport report;
    final List<InboundEvent> events = new ArrayList<>();
    final int limit;

    private Imported(ImportSettings settings, List<Path> inputs) throws IOException {
        this.limit = settings.maxRecordBytes();
        this.report = new Importer(settings).run(inputs, lines::add);
        SessionEventDecoder decoder = SessionEventDecoder.json(limit);
        for (byte[] line : lines) {
            String text = new String(line, StandardCharsets.UTF_8);
            String tenant = field(text, "tenant_id");
            String session = field(text, "session_id");
            byte[] key = (tenant + "/" + session).getBytes(StandardCharsets.UTF_8);
            Decoded d = decoder.decode(key, line);
            assertThat(d.accepted()).as("decoder verdict on %s: %s %s", text.length() > 300 ? text.substring(0, 300) : text,
                    d.code(), d.message()).isTrue();
            events.add(d.event());
        }
    }

    static Imported run(ImportSettings settings, Path... inputs) throws IOException {
        return new Imported(settings, List.of(inputs));
    }

    static Path resource(String path) {
        try {
            return Path.of(Imported.class.getResource("/importer/" + path).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String field(String json, String name) {
        try {
            return RawJson.MAPPER.readTree(json).get(name).asText();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Session ids in output order. */
    List<String> sessions() {
        Map<String, Boolean> seen = new LinkedHashMap<>();
        for (InboundEvent e : events) seen.put(e.sessionId(), true);
        return new ArrayList<>(seen.keySet());
    }

    List<Turn> turns(String sessionId) {
        List<Turn> out = new ArrayList<>();
        for (InboundEvent e : events) if (e.sessionId().equals(sessionId) && e.turn() != null) out.add(e.turn());
        return out;
    }

    List<InboundEvent> events(String sessionId) {
        return events.stream().filter(e -> e.sessionId().equals(sessionId)).toList();
    }

    String text() {
        StringBuilder sb = new StringBuilder();
        for (byte[] l : lines) sb.append(new String(l, StandardCharsets.UTF_8)).append('\n');
        return sb.toString();
    }

    /** Applies a session's turns to a fresh state and renders a LOCAL hand-off to {@code toAgent}. */
    Snapshot render(String sessionId, String toAgent) {
        Policy policy = Policy.defaults();
        SessionState state = SessionState.empty();
        for (Turn t : turns(sessionId)) state.offerTurn(t, policy, 0L);
        Handoff h = new Handoff("h-test", null, toAgent, Target.LOCAL, null, null, null);
        return ContextEngine.render("acme", sessionId, state, new ReadyHandoff(h, 0L, null), policy);
    }
}
