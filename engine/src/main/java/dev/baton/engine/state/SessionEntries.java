package dev.baton.engine.state;

/**
 * Where one session's entries are kept (the processor's ordered store, or memory): each entry is addressed by its
 * {@link EntryKind} and a number, and {@link #scan} reads them back in kind order, then number order.
 */
public interface SessionEntries {
    void put(EntryKind kind, long number, byte[] value);

    void delete(EntryKind kind, long number);

    /** Visits every entry of the session, by kind then by ascending number. */
    void scan(Visitor visitor);

    @FunctionalInterface
    interface Visitor {
        void entry(EntryKind kind, long number, byte[] value);
    }
}
