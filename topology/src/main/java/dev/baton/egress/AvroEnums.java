package dev.baton.egress;

import dev.baton.avro.TruncationKind;

/** The engine's enums mapped to the generated Avro ones by name, once (not a {@code valueOf} lookup per value). */
final class AvroEnums {
    private static final TruncationKind[] TRUNCATION;

    static {
        dev.baton.engine.snapshot.TruncationKind[] engine = dev.baton.engine.snapshot.TruncationKind.values();
        TRUNCATION = new TruncationKind[engine.length];
        for (int i = 0; i < engine.length; i++) TRUNCATION[i] = TruncationKind.valueOf(engine[i].name());
    }

    private AvroEnums() {
    }

    static TruncationKind truncation(dev.baton.engine.snapshot.TruncationKind kind) {
        return TRUNCATION[kind.ordinal()];
    }
}
