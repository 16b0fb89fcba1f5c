package dev.baton.engine.snapshot;

/** R7: the conversation is the receiver's own from the start, or the receiver continues others' work. */
public enum FramingKind { OWNER_FROM_START, CONTINUITY }
