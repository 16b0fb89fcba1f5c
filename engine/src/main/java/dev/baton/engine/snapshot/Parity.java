package dev.baton.engine.snapshot;

/** R9: items (texts, tool names, arguments, results) of the reference rendering, and how many the receiver's covers. */
public record Parity(String referenceAgent, long referenceItems, long coveredItems) {
}
