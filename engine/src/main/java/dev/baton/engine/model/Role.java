package dev.baton.engine.model;

/** Who produced a turn (docs/contract.md, "Turns", {@code role}). */
public enum Role { USER, ASSISTANT, SYSTEM, TOOL }
