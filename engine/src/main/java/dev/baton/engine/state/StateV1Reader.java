package dev.baton.engine.state;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Turn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.TreeMap;

/**
 * Reads format version 1: Baton's earlier single-blob session state (one version byte {@code 1}, then the whole state
 * as JSON, written by the former {@code SessionStateCodec}), and turns it into a {@link SessionState} that
 * {@link StateMigrations} then stores as a skeleton and entries of the current version. The JSON's field names are frozen in {@link V1} below,
 * so no later change to the state's classes can silently lose an old state (see {@code StoredFormatGoldenTest}).
 */
public final class StateV1Reader {
    public static final byte VERSION = 1;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .visibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE)
            .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
            .visibility(PropertyAccessor.CREATOR, JsonAutoDetect.Visibility.ANY)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private StateV1Reader() {
    }

    /** The v1 layout, field for field. */
    static final class V1 {
        long nextSeq;
        long lastAppliedSeq = -1;
        long firstAppliedSeq = -1;
        long turnCount;
        TreeMap<Long, Turn> held = new TreeMap<>();
        long heldBytes;
        long heldSinceMillis = -1;
        List<MissingRange> missing = new ArrayList<>();
        MissingRange olderMissing;
        V1Turn headUser;
        V1Turn headAssistant;
        ArrayDeque<V1Turn> body = new ArrayDeque<>();
        V1Compacted compacted = new V1Compacted();
        List<V1Trail> trails = new ArrayList<>();
        long manifestUnlisted;
        LinkedHashMap<String, V1OpenCall> openCalls = new LinkedHashMap<>();
        String primaryAgent;
        String firstActor;
        boolean anotherActorActed;
        List<String> agents = new ArrayList<>();
        boolean moreAgents;
        LinkedHashSet<String> handoffIds = new LinkedHashSet<>();
        List<V1Waiting> waiting = new ArrayList<>();
        long duplicateTurns;
        long duplicateHandoffs;
        long lastEventMillis = -1;
        long closedAtMillis = -1;
        boolean compaction = true;
    }

    static final class V1Turn {
        long seq;
        String agent;
        dev.baton.engine.model.Role role;
        String text;
        List<dev.baton.engine.model.ToolStep> trail;
        List<V1Call> calls;
        List<String> toolNames = new ArrayList<>();
        boolean trailBearing;
        boolean manifested;
        V1Resolved answers;
        String toolCallId;
    }

    static final class V1Call {
        String callId;
        String tool;
        String arguments;
        String result;
        long answeredBySeq = -1;
    }

    record V1Resolved(long callingSeq, String callingAgent, String callId, String tool, String arguments) {
    }

    static final class V1Compacted {
        long count;
        long fromSeq = -1;
        long toSeq = -1;
        List<String> lines = new ArrayList<>();
        List<Long> lineSeqs = new ArrayList<>();
        long lineChars;
        boolean overflow;
    }

    static final class V1Trail {
        long seq;
        String agent;
        List<String> toolNames = new ArrayList<>();
        long bytes;
        boolean manifested;
    }

    record V1OpenCall(long callingSeq, String agent, String callId, String tool, String arguments) {
    }

    record V1Waiting(Handoff handoff, long occurredAtMillis, long parkedAtMillis) {
    }

    /** Decodes a v1 blob into a state whose hand-off ids are in memory (ordinals 0..n-1, oldest first). */
    public static SessionState read(byte[] bytes) {
        if (bytes == null || bytes.length == 0) throw new IllegalArgumentException("empty session state");
        if (bytes[0] != VERSION) throw new IllegalStateException("not a v1 session state: version " + bytes[0]);
        V1 v;
        try {
            v = MAPPER.readValue(bytes, 1, bytes.length - 1, V1.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot decode v1 session state", e);
        }
        SessionState s = new SessionState();
        Ordering o = s.ordering;
        o.nextSeq = v.nextSeq;
        o.lastAppliedSeq = v.lastAppliedSeq;
        o.firstAppliedSeq = v.firstAppliedSeq;
        o.turnCount = v.turnCount;
        o.held.putAll(v.held);
        o.heldBytes = v.heldBytes;
        o.heldSinceMillis = v.heldSinceMillis;
        o.missing.addAll(v.missing);
        o.olderMissing = v.olderMissing;
        Transcript t = s.transcript;
        t.headUser = turn(v.headUser);
        t.headAssistant = turn(v.headAssistant);
        for (V1Turn b : v.body) {
            StoredTurn st = turn(b);
            t.addReadBack(st);
            t.weight += st.weight();
        }
        if (t.headUser != null) t.weight += t.headUser.weight();
        if (t.headAssistant != null) t.weight += t.headAssistant.weight();
        Compacted c = t.compacted;
        c.count = v.compacted.count;
        c.fromSeq = v.compacted.fromSeq;
        c.toSeq = v.compacted.toSeq;
        c.lines.addAll(v.compacted.lines);
        c.lineSeqs.addAll(v.compacted.lineSeqs);
        c.lineChars = v.compacted.lineChars;
        c.overflow = v.compacted.overflow;
        for (V1Trail e : v.trails) {
            TrailEntry te = new TrailEntry(e.seq, e.agent, e.toolNames, e.bytes);
            te.manifested = e.manifested;
            s.ledger.trails.add(te);
        }
        s.ledger.manifestUnlisted = v.manifestUnlisted;
        s.ledger.readBack(); // the running sums, as a state read back from its entries starts them
        for (V1OpenCall oc : v.openCalls.values()) {
            s.ledger.openCalls.put(oc.callId(), new TrailLedger.OpenCall(s.ledger.nextCallOrdinal++, oc.callingSeq(),
                    oc.agent(), oc.callId(), oc.tool(), oc.arguments()));
        }
        Actors a = s.actors;
        a.primaryAgent = v.primaryAgent;
        a.firstActor = v.firstActor;
        a.anotherActorActed = v.anotherActorActed;
        a.agents.addAll(v.agents);
        a.moreAgents = v.moreAgents;
        HandoffQueue h = s.handoffs;
        for (String id : v.handoffIds) h.ids.put(h.nextIdOrdinal++, id);
        for (V1Waiting w : v.waiting) h.waiting.add(new HandoffQueue.WaitingHandoff(w.handoff(), w.occurredAtMillis(),
                w.parkedAtMillis()));
        h.duplicateHandoffs = v.duplicateHandoffs;
        s.duplicateTurns = v.duplicateTurns;
        s.lastEventMillis = v.lastEventMillis;
        s.closedAtMillis = v.closedAtMillis;
        s.compaction = v.compaction;
        return s;
    }

    private static StoredTurn turn(V1Turn v) {
        if (v == null) return null;
        StoredTurn t = new StoredTurn();
        t.seq = v.seq;
        t.agent = v.agent;
        t.role = v.role;
        t.text = v.text;
        t.trail = v.trail == null ? null : new ArrayList<>(v.trail);
        if (v.calls != null) {
            t.calls = new ArrayList<>();
            for (V1Call c : v.calls) {
                StoredTurn.LegacyCall lc = new StoredTurn.LegacyCall(c.callId, c.tool, c.arguments);
                lc.result = c.result;
                lc.answeredBySeq = c.answeredBySeq;
                t.calls.add(lc);
            }
        }
        t.toolNames = new ArrayList<>(v.toolNames);
        t.trailBearing = v.trailBearing;
        t.manifested = v.manifested;
        if (v.answers != null) {
            t.answers = new StoredTurn.ResolvedCall(v.answers.callingSeq(), v.answers.callingAgent(),
                    v.answers.callId(), v.answers.tool(), v.answers.arguments());
        }
        t.toolCallId = v.toolCallId;
        return t;
    }
}
