package dev.baton.engine.retention;

import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.RetentionPlace;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.TrailEntry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * R3 — plans trail retention, newest first: the {@code expandedTrailTurns} newest trail-bearing turns are expanded;
 * the following ones are inlined while their cumulative trail bytes (over the turns after the expanded ones) stay
 * within {@code inlineTrailBytes}; all older ones go to the manifest. The first turn that does not fit ends the
 * inlining (older turns are not considered), so the retained trails are always the newest ones.
 */
public final class RetentionPlanner {
    private RetentionPlanner() {
    }

    public static RetentionPlan plan(SessionState state, Policy policy) {
        List<Long> expanded = new ArrayList<>();
        List<Long> inlined = new ArrayList<>();
        List<TrailEntry> manifest = new ArrayList<>();
        long[] retained = new long[8];
        int kept = 0;
        long bytes = 0;
        List<TrailEntry> trails = state.trails();
        // R3's one walk, shared with the state's compaction (SessionState.retentionWalk).
        List<RetentionPlace> places = state.retentionWalk(policy);
        for (int i = 0; i < trails.size(); i++) {
            TrailEntry e = trails.get(i);
            switch (places.get(i)) {
                case EXPANDED -> expanded.add(e.seq);
                case INLINED -> inlined.add(e.seq);
                case MANIFEST -> {
                    manifest.add(e);
                    continue;
                }
            }
            if (kept == retained.length) retained = Arrays.copyOf(retained, 2 * kept);
            retained[kept++] = e.seq;
            bytes += e.bytes;
        }
        retained = Arrays.copyOf(retained, kept);
        Arrays.sort(retained);
        return new RetentionPlan(expanded, inlined, manifest, state.manifestUnlisted(), bytes, retained);
    }
}
