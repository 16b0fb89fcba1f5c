package dev.baton.replay.importer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/** One recorded document (a trajectory or a conversation), with the Baton session id it was given. */
final class Doc {
    /** "path" or "path:line" (and " subagent N" for an embedded trajectory). */
    final String source;
    /** The file, null for stdin. */
    final Path file;
    /** The document; released after pass 1 (only the ids are kept). */
    JsonNode tree;
    final Doc parent;
    String sessionId;
    String rawTrajectoryId;
    final List<Doc> embedded = new ArrayList<>();

    Doc(String source, Path file, JsonNode tree, Doc parent) {
        this.source = source;
        this.file = file;
        this.tree = tree;
        this.parent = parent;
    }

    /** Drops the trees (pass 1 keeps only ids). */
    void release() {
        tree = null;
        embedded.forEach(Doc::release);
    }

    /** A subagent reference resolved to a Baton session: imported in this run, or only named. */
    record Resolved(String sessionId, boolean imported) {
    }

    /** Resolves ATIF {@code subagent_trajectory_ref} entries against the documents of the run. */
    interface Resolver {
        Resolved subagent(JsonNode ref, Doc from);
    }
}
