package dev.baton.replay.importer;

import java.util.ArrayList;
import java.util.List;

/** The turns of one session, in order, with the session's Baton id. */
final class ImportedSession {
    final String sessionId;
    final String source;
    final List<ImportedTurn> turns = new ArrayList<>();

    ImportedSession(String sessionId, String source) {
        this.sessionId = sessionId;
        this.source = source;
    }
}
