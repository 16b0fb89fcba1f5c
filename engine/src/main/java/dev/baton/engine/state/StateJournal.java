package dev.baton.engine.state;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The entries a state changed since it was last stored: what {@link StateStorage#flush} writes (puts) or removes
 * (deletes), so that one event writes its own turn and the skeleton, not the whole state. A put after a delete of
 * the same entry is a put; a delete after a put is a delete. Off (null) for states that are never stored.
 */
public final class StateJournal {
    private final EnumMap<EntryKind, LinkedHashMap<Long, Boolean>> changes = new EnumMap<>(EntryKind.class);

    void put(EntryKind kind, long number) {
        changes.computeIfAbsent(kind, k -> new LinkedHashMap<>()).put(number, Boolean.TRUE);
    }

    void delete(EntryKind kind, long number) {
        changes.computeIfAbsent(kind, k -> new LinkedHashMap<>()).put(number, Boolean.FALSE);
    }

    /** One change: {@code put} true writes the entry's current value, false deletes it. */
    public record Change(EntryKind kind, long number, boolean put) {
    }

    /** The changes in kind order, then in the order they were first made, and forgets them. */
    public List<Change> drain() {
        List<Change> out = new ArrayList<>();
        for (Map.Entry<EntryKind, LinkedHashMap<Long, Boolean>> e : changes.entrySet()) {
            for (Map.Entry<Long, Boolean> c : e.getValue().entrySet()) {
                out.add(new Change(e.getKey(), c.getKey(), c.getValue()));
            }
        }
        changes.clear();
        return out;
    }

    public boolean isEmpty() {
        for (LinkedHashMap<Long, Boolean> m : changes.values()) if (!m.isEmpty()) return false;
        return true;
    }
}
