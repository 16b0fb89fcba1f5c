package dev.baton.engine.model;

/** Who produced a turn (CONTRACT.md §2, {@code Turn.role}). */
public enum Role { USER, ASSISTANT, SYSTEM, TOOL }
