package dev.baton.engine.retention;

import dev.baton.engine.markers.Markers;
import dev.baton.engine.state.ManifestLine;
import dev.baton.engine.state.TrailEntry;

import java.util.ArrayList;
import java.util.List;

/**
 * R3 — the manifest message that replaces the trails of older trail-bearing turns: a header saying the full detail is
 * in the session history, one line per turn (seq, agent, tool names), newest first, within its own cap, and a last
 * line saying how many older trail-bearing turns it does not list.
 */
public final class Manifest {
    private Manifest() {
    }

    /** The rendered manifest: its text, the seqs it lists, and how many it does not list. */
    public record Rendered(String text, List<Long> listedSeqs, long unlisted, String header) {
    }

    public static Rendered render(RetentionPlan plan, int capChars) {
        long total = plan.manifestTotal();
        String header = Markers.manifestHeader(total);
        List<TrailEntry> entries = plan.manifestEntries();
        List<Long> listed = new ArrayList<>();
        int used = header.length();
        // Lines are measured, then written straight into the text (no string per line).
        for (TrailEntry e : entries) {
            int line = ManifestLine.length(e);
            long unlistedAfter = total - listed.size() - 1;
            int withFooter = used + 1 + line + 1 + Markers.manifestFooter(unlistedAfter).length();
            if (withFooter > capChars) break;
            listed.add(e.seq);
            used += 1 + line;
        }
        long unlisted = total - listed.size();
        String footer = Markers.manifestFooter(unlisted);
        StringBuilder sb = new StringBuilder(used + 1 + footer.length()).append(header);
        for (int i = 0; i < listed.size(); i++) ManifestLine.appendTo(entries.get(i), sb.append('\n'));
        sb.append('\n').append(footer);
        return new Rendered(sb.toString(), listed, unlisted, header);
    }
}
