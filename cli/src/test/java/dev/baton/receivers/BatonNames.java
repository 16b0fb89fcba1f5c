package dev.baton.receivers;

import dev.baton.replay.importer.Names;

/**
 * Maps recorded identifiers and names onto Baton's patterns (docs/contract.md, "Identifiers and names") with
 * {@code baton import}'s own mapping ({@link Names}; docs/import.md, "Sessions, identifiers and names"). A recording
 * that names no agent gets {@code unnamed}.
 */
final class BatonNames {
    private BatonNames() {
    }

    static String id(String raw) {
        return Names.id(raw);
    }

    static String name(String raw) {
        return raw == null || raw.isEmpty() ? "unnamed" : Names.name(raw);
    }
}
