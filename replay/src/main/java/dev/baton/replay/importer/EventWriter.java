package dev.baton.replay.importer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.baton.engine.model.Role;
import dev.baton.engine.trim.ArgumentsCutter;
import dev.baton.replay.importer.ImportReport.Kind;

/**
 * Writes a session's turns as SessionEvent JSON lines (docs/contract.md, "JSONL files"): seqs from 0, deterministic
 * event ids ({@code {session_id}:{seq}}), occurred_at filled in where the recording had no time, every record within
 * the record limit (a trail split over several turns, or text cut around a visible marker, reported), and an optional
 * hand-off after the last turn.
 */
final class EventWriter {
    /** Receives each event line (UTF-8 JSON, no new line). */
    interface Sink {
        void line(byte[] json) throws IOException;
    }

    /** The default time of a session whose recording has none (docs/import.md). */
    static final Instant NO_TIME = Instant.EPOCH;
    static final String HANDOFF_ID = "import-last";

    private final ImportSettings settings;
    private final ImportReport report;
    private final Sink sink;

    EventWriter(ImportSettings settings, ImportReport report, Sink sink) {
        this.settings = settings;
        this.report = report;
        this.sink = sink;
    }

    void write(ImportedSession session) throws IOException {
        fillTimes(session.turns);
        String tenant = settings.tenantId();
        String sid = session.sessionId;
        long keyBytes = Texts.utf8(tenant) + 1 + Texts.utf8(sid);
        long seq = 0;
        String lastAssistant = null;
        Instant lastTime = null;
        for (ImportedTurn turn : session.turns) {
            byte[] whole = turnEvent(eventId(sid, Long.toString(seq)), tenant, sid, seq, turn);
            // the common case: the turn fits as it is (serialized once); otherwise fit() splits or cuts it
            List<ImportedTurn> parts = keyBytes + whole.length <= settings.maxRecordBytes() ? null : fit(turn, keyBytes, session);
            for (ImportedTurn part : parts == null ? List.of(turn) : parts) {
                sink.line(parts == null ? whole : turnEvent(eventId(sid, Long.toString(seq)), tenant, sid, seq, part));
                report.events++;
                report.turns++;
                report.toolSteps += part.trail.size() + part.calls.size();
                seq++;
            }
            if (turn.role == Role.ASSISTANT) lastAssistant = turn.agent;
            lastTime = turn.occurredAt;
        }
        report.sessions++;
        if (settings.handoffLastTo() != null && seq > 0) {
            sink.line(handoffEvent(eventId(sid, "handoff-last"), tenant, sid, lastTime, lastAssistant, seq - 1));
            report.events++;
            report.handoffs++;
        }
    }

    static String eventId(String sessionId, String suffix) {
        return Names.withSuffix(sessionId, ":" + suffix);
    }

    /** A turn without a time takes the previous turn's; turns before the first known time take that; else NO_TIME. */
    static void fillTimes(List<ImportedTurn> turns) {
        Instant first = null;
        for (ImportedTurn t : turns) {
            if (t.occurredAt != null) {
                first = t.occurredAt;
                break;
            }
        }
        Instant previous = first == null ? NO_TIME : first;
        for (ImportedTurn t : turns) {
            if (t.occurredAt == null) t.occurredAt = previous;
            previous = t.occurredAt;
        }
    }

    // ---------------------------------------------------------------------------------------------------- fitting

    /** Bytes of the event of {@code t} with the longest possible seq and event id (so seqs never change the fit). */
    private long size(ImportedTurn t, long keyBytes, String sid) {
        return keyBytes + turnEvent("x".repeat(128), settings.tenantId(), sid, Long.MAX_VALUE, t).length;
    }

    /**
     * The turn as one record when it fits; otherwise its trail split over consecutive turns of the same agent (the
     * text on the last), and a single step, or text, that alone is too large cut around a visible marker.
     */
    private List<ImportedTurn> fit(ImportedTurn t, long keyBytes, ImportedSession session) {
        long limit = settings.maxRecordBytes();
        if (size(t, keyBytes, session.sessionId) <= limit) return List.of(t);
        List<ImportedTurn> out = new ArrayList<>();
        if (t.trail.size() + t.calls.size() > 1) {
            ImportedTurn current = t.copyWithout();
            int parts = 0;
            List<Object> items = new ArrayList<>();
            items.addAll(t.trail);
            items.addAll(t.calls);
            for (Object item : items) {
                ImportedTurn candidate = t.copyWithout();
                candidate.trail.addAll(current.trail);
                candidate.calls.addAll(current.calls);
                add(candidate, item);
                if (!current.trail.isEmpty() || !current.calls.isEmpty()) {
                    if (size(candidate, keyBytes, session.sessionId) > limit) {
                        out.addAll(fit(current, keyBytes, session));
                        parts++;
                        current = t.copyWithout();
                        add(current, item);
                        continue;
                    }
                }
                current = candidate;
            }
            current.text = t.text;
            out.addAll(fit(current, keyBytes, session));
            parts++;
            report.add(t.origin, Kind.CUT_TO_FIT, "tool activity of " + (t.trail.size() + t.calls.size())
                    + " calls split over " + parts + " turns to fit the " + limit + "-byte record limit");
            return out;
        }
        // one step (or none): cut the largest of text, result and arguments until it fits
        int guard = 0;
        while (size(t, keyBytes, session.sessionId) > limit && guard++ < 64) {
            long excess = size(t, keyBytes, session.sessionId) - limit;
            ImportedTurn.Step step = t.trail.isEmpty() ? null : t.trail.get(0);
            ImportedTurn.Call call = t.calls.isEmpty() ? null : t.calls.get(0);
            String args = step != null ? step.arguments : call != null ? call.arguments : null;
            long textBytes = Texts.utf8(t.text);
            long resultBytes = step == null ? 0 : Texts.utf8(step.result);
            long argBytes = Texts.utf8(args);
            if (argBytes > textBytes && argBytes > resultBytes) {
                ArgumentsCutter.Cut cut = ArgumentsCutter.cut(args, (int) Math.min(Integer.MAX_VALUE, excess + 64));
                String cutArgs;
                if (cut.removed() > 0) {
                    cutArgs = cut.arguments();
                    report.add(t.origin, Kind.CUT_TO_FIT, "arguments cut by " + cut.removed()
                            + " characters inside their longest string values to fit the " + limit + "-byte record limit");
                } else {
                    // no string value long enough to cut (a huge array of numbers, say): keep a head and a tail of the
                    // arguments' JSON text as one string value, so they stay a JSON object
                    com.fasterxml.jackson.databind.node.ObjectNode o =
                            com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
                    o.put("arguments_cut_by_baton_import", cutText(args, excess, limit));
                    cutArgs = RawJson.write(o);
                    report.add(t.origin, Kind.CUT_TO_FIT, "arguments without a long string value replaced by a head and "
                            + "a tail of their JSON text to fit the " + limit + "-byte record limit");
                }
                if (step != null) step.arguments = cutArgs;
                else call.arguments = cutArgs;
            } else if (resultBytes >= textBytes) {
                step.result = cutText(step.result, excess, limit);
                report.add(t.origin, Kind.CUT_TO_FIT, "result of call " + Texts.quote(step.callId)
                        + " cut to fit the " + limit + "-byte record limit");
            } else {
                t.text = cutText(t.text, excess, limit);
                report.add(t.origin, Kind.CUT_TO_FIT, "text cut to fit the " + limit + "-byte record limit");
            }
        }
        if (size(t, keyBytes, session.sessionId) > limit) {
            throw new IllegalStateException(t.origin + ": a turn cannot be made to fit " + limit + " bytes");
        }
        out.add(t);
        return out;
    }

    private static void add(ImportedTurn t, Object item) {
        if (item instanceof ImportedTurn.Step s) t.trail.add(s);
        else t.calls.add((ImportedTurn.Call) item);
    }

    /**
     * Keeps a head and a tail of {@code s} around the line
     * {@code … (N characters cut by baton import to fit the L-byte record limit) …}, removing at least
     * {@code excess} bytes (plus room for escaping), never splitting a surrogate pair.
     */
    static String cutText(String s, long excess, long limit) {
        // JSON escaping can make a character up to 6 bytes: remove generously, the caller loops if still too large
        long removeBytes = excess + 256;
        long keepBytes = Math.max(0, Texts.utf8(s) - removeBytes);
        int head = prefixChars(s, keepBytes / 2);
        int tail = suffixChars(s, keepBytes - keepBytes / 2, head);
        int cut = s.length() - head - tail;
        String marker = "\n… (" + String.format(Locale.ROOT, "%,d", cut) + " characters cut by baton import to fit the "
                + String.format(Locale.ROOT, "%,d", limit) + "-byte record limit) …\n";
        return s.substring(0, head) + marker + s.substring(s.length() - tail);
    }

    private static int prefixChars(String s, long bytes) {
        long n = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            long b = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (n + b > bytes) break;
            n += b;
            i += Character.charCount(cp);
        }
        return i;
    }

    private static int suffixChars(String s, long bytes, int notBefore) {
        long n = 0;
        int i = s.length();
        while (i > notBefore) {
            int cp = s.codePointBefore(i);
            long b = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (n + b > bytes) break;
            n += b;
            i -= Character.charCount(cp);
        }
        return s.length() - i;
    }

    // ---------------------------------------------------------------------------------------------------- JSON

    static byte[] turnEvent(String eventId, String tenant, String session, long seq, ImportedTurn t) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + t.text.length());
        try (JsonGenerator g = RawJson.FACTORY.createGenerator(out)) {
            envelope(g, eventId, tenant, session, t.occurredAt);
            g.writeObjectFieldStart("turn");
            g.writeNumberField("seq", seq);
            g.writeStringField("agent", t.agent);
            g.writeStringField("role", t.role.name());
            g.writeStringField("text", t.text);
            if (!t.trail.isEmpty()) {
                g.writeArrayFieldStart("trail");
                for (ImportedTurn.Step s : t.trail) {
                    g.writeStartObject();
                    g.writeStringField("call_id", s.callId);
                    g.writeStringField("tool", s.tool);
                    g.writeFieldName("arguments");
                    g.writeRawValue(s.arguments);
                    if (s.result == null) g.writeNullField("result");
                    else g.writeStringField("result", s.result);
                    g.writeStringField("status", s.status.name());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (!t.calls.isEmpty()) {
                g.writeArrayFieldStart("tool_calls");
                for (ImportedTurn.Call c : t.calls) {
                    g.writeStartObject();
                    g.writeStringField("call_id", c.callId);
                    g.writeStringField("tool", c.tool);
                    g.writeFieldName("arguments");
                    g.writeRawValue(c.arguments);
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (t.toolCallId != null) g.writeStringField("tool_call_id", t.toolCallId);
            if (t.model != null) g.writeStringField("model", t.model);
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    byte[] handoffEvent(String eventId, String tenant, String session, Instant at, String from, long asOfSeq) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = RawJson.FACTORY.createGenerator(out)) {
            envelope(g, eventId, tenant, session, at);
            g.writeObjectFieldStart("handoff");
            g.writeStringField("handoff_id", HANDOFF_ID);
            if (from != null) g.writeStringField("from_agent", from);
            g.writeStringField("to_agent", settings.handoffLastTo());
            g.writeStringField("target", settings.handoffTarget().name());
            g.writeNumberField("as_of_seq", asOfSeq);
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void envelope(JsonGenerator g, String eventId, String tenant, String session, Instant at)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("event_id", eventId);
        g.writeStringField("tenant_id", tenant);
        g.writeStringField("session_id", session);
        g.writeStringField("occurred_at", (at == null ? NO_TIME : at).truncatedTo(ChronoUnit.MILLIS).toString());
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
