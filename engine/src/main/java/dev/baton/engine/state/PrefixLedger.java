package dev.baton.engine.state;

import dev.baton.engine.snapshot.PrefixPrint;

import java.util.ArrayList;
import java.util.List;

/**
 * The prints of the last LOCAL snapshot of the session's {@value #MAX_RECEIVERS} most recent receivers
 * ({@link PrefixPrint}: what the next snapshot for the same receiver compares its messages with, and the tail anchor
 * the trim step starts from). One entry per receiver ({@link EntryKind#PREFIX}), keyed by an ordinal that grows with
 * every remembered snapshot, so that ordinal order is recency order: the newest entry's anchor is the session's.
 */
final class PrefixLedger {
    /** Receivers remembered per session; an older receiver's next snapshot has nothing to compare with. */
    static final int MAX_RECEIVERS = 4;

    /** A remembered print. */
    record Remembered(long ordinal, String receiver, PrefixPrint print) {
    }

    /** Least recent first. */
    final List<Remembered> remembered = new ArrayList<>(MAX_RECEIVERS + 1);
    long nextOrdinal;
    StateJournal journal;

    PrefixPrint of(String receiver) {
        for (Remembered r : remembered) if (r.receiver().equals(receiver)) return r.print();
        return null;
    }

    /** Whether the middle of the session's newest remembered snapshot was the bare marker. */
    boolean anchorMarker() {
        return !remembered.isEmpty() && remembered.get(remembered.size() - 1).print().anchorMarker();
    }

    /** The tail anchor of the session's newest remembered snapshot, or -1. */
    long anchorSeq() {
        return remembered.isEmpty() ? -1 : remembered.get(remembered.size() - 1).print().anchorSeq();
    }

    void remember(String receiver, PrefixPrint print) {
        for (int i = 0; i < remembered.size(); i++) {
            if (remembered.get(i).receiver().equals(receiver)) {
                deleted(remembered.remove(i));
                break;
            }
        }
        Remembered r = new Remembered(nextOrdinal++, receiver, print);
        remembered.add(r);
        if (journal != null) journal.put(EntryKind.PREFIX, r.ordinal());
        while (remembered.size() > MAX_RECEIVERS) deleted(remembered.remove(0));
    }

    private void deleted(Remembered r) {
        if (journal != null) journal.delete(EntryKind.PREFIX, r.ordinal());
    }

    Remembered find(long ordinal) {
        for (Remembered r : remembered) if (r.ordinal() == ordinal) return r;
        return null;
    }

    /** Approximate heap bytes of the remembered prints (an object, a name and 8 bytes per block each). */
    long weight() {
        long n = 0;
        for (Remembered r : remembered) n += 96 + 2L * r.receiver().length() + 8L * r.print().blockCount();
        return n;
    }

    /** An entry read back from the store (in ascending ordinal order). */
    void readBack(Remembered r) {
        remembered.add(r);
        nextOrdinal = Math.max(nextOrdinal, r.ordinal() + 1);
    }
}
