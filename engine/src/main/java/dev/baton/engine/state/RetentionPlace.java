package dev.baton.engine.state;

/** Where R3 puts one trail-bearing turn's trail (see {@link SessionState#retentionWalk}). */
public enum RetentionPlace { EXPANDED, INLINED, MANIFEST }
