package dev.baton.engine.state;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The hand-off ids a session remembers, one entry per id, numbered by an ordinal in the order they were first seen
 * (the oldest is forgotten first). Kept outside the skeleton: the processor backs it with its own store; this class
 * is the in-memory form (tests, the offline engine).
 */
public interface HandoffIdLog {
    boolean contains(String handoffId);

    /** Remembers {@code handoffId} under {@code ordinal}. */
    void put(long ordinal, String handoffId);

    /** Forgets the id remembered under {@code ordinal} (if any). */
    void remove(long ordinal);

    /** The in-memory log. */
    static HandoffIdLog inMemory() {
        return new InMemory();
    }

    /** Ids by ordinal and ordinals by id, in memory. */
    final class InMemory implements HandoffIdLog {
        final TreeMap<Long, String> byOrdinal = new TreeMap<>();
        final Map<String, Long> byId = new HashMap<>();

        @Override
        public boolean contains(String handoffId) {
            return byId.containsKey(handoffId);
        }

        @Override
        public void put(long ordinal, String handoffId) {
            byOrdinal.put(ordinal, handoffId);
            byId.put(handoffId, ordinal);
        }

        @Override
        public void remove(long ordinal) {
            String id = byOrdinal.remove(ordinal);
            if (id != null) byId.remove(id);
        }

        /** Ids by ordinal, oldest first. */
        public Map<Long, String> entries() {
            return java.util.Collections.unmodifiableMap(byOrdinal);
        }
    }
}
