package dev.baton.replay.importer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an import did besides writing events: the inputs it rejected (with their path and the reason), every
 * identifier or name it had to map to fit docs/contract.md ("Identifiers and names"), and every other liberty it took
 * (results without a call, cuts to fit the record limit, ...). Notes are kept in the order they were found, which is
 * the documented input order, so two runs over the same files give the same report.
 */
public final class ImportReport {

    /** The kinds of notes. */
    public enum Kind {
        /** An input (file, line or document) that is not valid ATIF / chat JSON: skipped, the rest goes on. */
        REJECTED,
        /** An identifier (tenant, session, call id) mapped to fit {@code [A-Za-z0-9._:-]{1,128}}. */
        ID_MAPPED,
        /** An agent or tool name mapped to fit {@code [A-Za-z0-9_-]{1,64}}. */
        NAME_MAPPED,
        /** Two inputs gave the same session id: the later one got a suffix. */
        SESSION_RENAMED,
        /** An observation result or tool message that answers no call of its step: a step of tool {@code unknown}. */
        RESULT_WITHOUT_CALL,
        /** A tool call without a result: no result recorded. */
        CALL_WITHOUT_RESULT,
        /** Tool results that are not next to their call (chat): legacy calls and TOOL turns. */
        LEGACY_CALLS,
        /** Text or a result cut, or a trail split over several turns, to fit the record limit. */
        CUT_TO_FIT,
        /** Something else mapped in a documented way (arguments that are not an object, repaired text, ...). */
        MAPPED
    }

    /** One note: where (path, and line or step when known), what kind, and what happened. */
    public record Note(String source, Kind kind, String message) {
    }

    private final List<Note> notes = new ArrayList<>();
    private final Map<String, String> mappedOnce = new LinkedHashMap<>();
    long inputs;
    long documents;
    long rejected;
    long sessions;
    long events;
    long turns;
    long toolSteps;
    long handoffs;

    void add(String source, Kind kind, String message) {
        notes.add(new Note(source, kind, message));
        if (kind == Kind.REJECTED) rejected++;
    }

    /** A mapping reported once per (kind, original) for the whole run. */
    void mappedOnce(String source, Kind kind, String what, String original, String mapped) {
        String key = kind + "\u0000" + what + "\u0000" + original;
        if (mappedOnce.putIfAbsent(key, mapped) == null) {
            add(source, kind, what + " " + Texts.quote(original) + " → " + Texts.quote(mapped));
        }
    }

    public List<Note> notes() {
        return Collections.unmodifiableList(notes);
    }

    /** Notes counted by kind, in the enum's order. */
    public Map<Kind, Integer> counts() {
        Map<Kind, Integer> m = new TreeMap<>();
        for (Note n : notes) m.merge(n.kind(), 1, Integer::sum);
        return m;
    }

    /** Files (or stdin) read. */
    public long inputs() {
        return inputs;
    }

    /** Documents read: trajectories / conversations (embedded subagent trajectories are not counted; their sessions are). */
    public long documents() {
        return documents;
    }

    /** Inputs, lines or documents rejected. */
    public long rejected() {
        return rejected;
    }

    public long sessions() {
        return sessions;
    }

    /** SessionEvent lines written. */
    public long events() {
        return events;
    }

    public long turns() {
        return turns;
    }

    /** Tool steps written (trail steps plus legacy calls). */
    public long toolSteps() {
        return toolSteps;
    }

    public long handoffs() {
        return handoffs;
    }
}
