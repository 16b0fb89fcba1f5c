package dev.baton.engine.snapshot;

/** docs/contract.md, "Output: ContextSnapshot": every kind of visible cut. */
public enum TruncationKind {
    TURNS_MISSING, TRAIL_MANIFEST, TRANSCRIPT_MIDDLE_SUMMARIZED, TRANSCRIPT_MIDDLE_DROPPED, SEGMENT_TRIMMED,
    BRICK_RESULT_TRUNCATED, BRICK_TURN_TRIMMED, BRICK_ACTIVITY_OMITTED, RESULT_CLEARED
}
