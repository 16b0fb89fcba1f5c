package dev.baton.consumer.dialect;

/**
 * A call id that the dialect had to change (docs/receivers.md, "Ids"): the {@code position} of the call in the
 * request (1-based, counting every call in order), its id in the snapshot and the id the request uses.
 */
public record IdMapping(int position, String original, String mapped) {
}
