package dev.baton.engine.state;

import java.util.ArrayList;
import java.util.List;

/**
 * One trail-bearing turn as the retention plan (R3) sees it: seq, agent, tool names and trail bytes (UTF-8 of the
 * compact arguments plus the result of every step; for legacy calls, plus the answering TOOL turn's text).
 */
public final class TrailEntry {
    public long seq;
    public String agent;
    public List<String> toolNames = new ArrayList<>();
    public long bytes;
    /** Set once the plan put this turn in the manifest; it never leaves it (newer turns only push it further). */
    public boolean manifested;

    public TrailEntry() {
    }

    public TrailEntry(long seq, String agent, List<String> toolNames, long bytes) {
        this.seq = seq;
        this.agent = agent;
        this.toolNames = new ArrayList<>(toolNames);
        this.bytes = bytes;
    }
}
