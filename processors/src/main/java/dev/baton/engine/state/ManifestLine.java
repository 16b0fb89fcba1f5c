package dev.baton.engine.state;

/** R3: one manifest entry line: {@code [seq 12 coder: read_file, grep]}. */
public final class ManifestLine {
    private ManifestLine() {
    }

    public static String of(TrailEntry e) {
        return "[seq " + e.seq + " " + e.agent + ": " + String.join(", ", e.toolNames) + "]";
    }
}
