package dev.baton.topology;

import dev.baton.config.BatonConfig;
import dev.baton.processor.PolicyDecoder;

import java.util.Objects;

/**
 * The three codecs the topology needs at its edges: input events, output snapshots and tenant policies. They are
 * chosen from the configuration ({@code baton.format}, {@code baton.schema-registry.url}) by {@link #forConfig}.
 */
public record BatonCodecs(EventDecoder events, SnapshotEncoder snapshots, PolicyDecoder policies) {
    public BatonCodecs {
        Objects.requireNonNull(events);
        Objects.requireNonNull(snapshots);
        Objects.requireNonNull(policies);
    }

    /** The codecs that {@code baton.format} and {@code baton.schema-registry.url} select. */
    public static BatonCodecs forConfig(BatonConfig config) {
        throw new UnsupportedOperationException(
                "the Avro/JSON serdes are not wired yet (branch serde); build the topology with explicit codecs");
    }
}
