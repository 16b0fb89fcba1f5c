package dev.baton.engine.state;

import java.util.ArrayList;
import java.util.List;

/**
 * The body turns that left the state because no future snapshot can show them: how many, their seq span, and their
 * digest lines (R5) while those fit the digest budget — past it the digest can never be used again, so only the
 * count and span are kept ({@code overflow}). Only turns that always render something are counted here; turns that
 * can never render anything again (an empty ASSISTANT turn whose trail is in the manifest) are never "omitted" and
 * simply leave the state once out of the brick's reach. The counters live in the skeleton; each digest line is its
 * own stored entry ({@link EntryKind#DIGEST}).
 */
public final class Compacted {
    public long count;
    public long fromSeq = -1;
    public long toSeq = -1;
    public List<String> lines = new ArrayList<>();
    /** The seq of each line, to merge them in seq order with the lines of turns still in state. */
    public List<Long> lineSeqs = new ArrayList<>();
    public long lineChars;
    public boolean overflow;

    void add(long seq, String digestLine, int digestBudget, StateJournal journal) {
        count++;
        if (fromSeq < 0 || seq < fromSeq) fromSeq = seq;
        if (seq > toSeq) toSeq = seq;
        if (overflow) return;
        lines.add(digestLine);
        lineSeqs.add(seq);
        if (journal != null) journal.put(EntryKind.DIGEST, seq);
        lineChars += digestLine.length() + 1;
        if (lineChars > digestBudget) {
            overflow = true;
            if (journal != null) for (long s : lineSeqs) journal.delete(EntryKind.DIGEST, s);
            lines.clear();
            lineSeqs.clear();
            lineChars = 0;
        }
    }
}
