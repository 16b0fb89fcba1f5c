package dev.baton.engine.model;

/** Where the receiving agent runs: a local/HTTP model that needs a transcript, or the Claude CLI (brick only, R11). */
public enum Target { LOCAL, CLAUDE_CLI }
