package dev.baton.engine.state;

import java.util.ArrayList;
import java.util.List;

/**
 * The body turns that left the state because no future snapshot can show them in full: how many, their seq span,
 * and their digest lines (R5) while those fit the digest budget — past it the digest can never be used again, so
 * only the count and span are kept ({@code overflow}).
 */
public final class Compacted {
    public long count;
    public long fromSeq = -1;
    public long toSeq = -1;
    public List<String> lines = new ArrayList<>();
    public long lineChars;
    public boolean overflow;

    public void add(long seq, String digestLine, int digestBudget) {
        count++;
        if (fromSeq < 0 || seq < fromSeq) fromSeq = seq;
        if (seq > toSeq) toSeq = seq;
        if (overflow) return;
        lines.add(digestLine);
        lineChars += digestLine.length() + 1;
        if (lineChars > digestBudget) {
            overflow = true;
            lines.clear();
            lineChars = 0;
        }
    }
}
