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
        List<String> lines = new ArrayList<>();
        List<Long> listed = new ArrayList<>();
        int used = header.length();
        for (TrailEntry e : plan.manifestEntries()) {
            String line = ManifestLine.of(e);
            long unlistedAfter = total - listed.size() - 1;
            int withFooter = used + 1 + line.length() + 1 + Markers.manifestFooter(unlistedAfter).length();
            if (withFooter > capChars) break;
            lines.add(line);
            listed.add(e.seq);
            used += 1 + line.length();
        }
        long unlisted = total - listed.size();
        StringBuilder sb = new StringBuilder(header);
        for (String l : lines) sb.append('\n').append(l);
        sb.append('\n').append(Markers.manifestFooter(unlisted));
        return new Rendered(sb.toString(), listed, unlisted, header);
    }
}
