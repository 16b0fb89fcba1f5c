package dev.baton.engine.markers;

import dev.baton.engine.snapshot.Truncation;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * R8 — the {@code truncations} list: every marker visible in the snapshot, once, in the order first seen
 * (transcript first, then brick). A marker that appears in both is listed once.
 */
public final class TruncationLog {
    private final LinkedHashSet<Truncation> entries = new LinkedHashSet<>();

    public void add(Truncation t) {
        if (t != null) entries.add(t);
    }

    public void addAll(List<Truncation> ts) {
        for (Truncation t : ts) add(t);
    }

    public List<Truncation> list() {
        return new ArrayList<>(entries);
    }
}
