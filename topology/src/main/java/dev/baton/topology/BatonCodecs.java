package dev.baton.topology;

import dev.baton.config.BatonConfig;
import dev.baton.egress.OutcomeEncoder;
import dev.baton.egress.SnapshotEncoder;
import dev.baton.ingest.ReceiptDecoder;
import dev.baton.engine.policy.Policy;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.ingest.TenantPolicyDecoder;
import dev.baton.processor.DependencyUnavailableException;
import dev.baton.processor.PolicyDecoder;
import dev.baton.serde.SchemaRegistries;
import dev.baton.serde.SchemaRegistryClient;
import dev.baton.serde.SchemaRegistryUnavailableException;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The three codecs the topology needs at its edges: input events, output snapshots and tenant policies, chosen by
 * {@code baton.format} (avro or json) and {@code baton.schema-registry.url}.
 */
public record BatonCodecs(SessionEventDecoder events, SnapshotEncoder snapshots, PolicyDecoder policies,
                          ReceiptDecoder receipts, OutcomeEncoder outcomes) {
    /** The codecs without receipts' (JSON ones: used only when a test turns receipts on). */
    public BatonCodecs(SessionEventDecoder events, SnapshotEncoder snapshots, PolicyDecoder policies) {
        this(events, snapshots, policies, ReceiptDecoder.forFormat("json", null),
                OutcomeEncoder.forFormat("json", null));
    }

    public BatonCodecs {
        Objects.requireNonNull(events);
        Objects.requireNonNull(snapshots);
        Objects.requireNonNull(policies);
        Objects.requireNonNull(receipts);
        Objects.requireNonNull(outcomes);
    }

    /** The codecs that {@code baton.format} and {@code baton.schema-registry.url} select. */
    public static BatonCodecs forConfig(BatonConfig config) {
        String format = config.format().name();
        SchemaRegistryClient registry = config.format() == BatonConfig.Format.AVRO
                ? SchemaRegistries.forUrl(config.schemaRegistryUrl().orElseThrow(),
                config.registryOptions()) : null;
        Policy defaults = config.defaultPolicy();
        return new BatonCodecs(SessionEventDecoder.forFormat(format, registry, defaults.maxRecordBytes()),
                SnapshotEncoder.forFormat(format, registry),
                policyDecoder(TenantPolicyDecoder.forFormat(format, registry, defaults)
                        .withMaxOutputBytes(config.maxOutputBytes())),
                ReceiptDecoder.forFormat(format, registry), OutcomeEncoder.forFormat(format, registry));
    }

    /** Adapts the serde's TenantPolicyDecoder to the processor's {@link PolicyDecoder} contract. */
    static PolicyDecoder policyDecoder(TenantPolicyDecoder decoder) {
        return (tenantId, bytes) -> {
            TenantPolicyDecoder.Result r;
            try {
                r = decoder.decode(tenantId.getBytes(StandardCharsets.UTF_8), bytes);
            } catch (SchemaRegistryUnavailableException e) {
                throw new DependencyUnavailableException("schema registry unavailable while reading the policy of "
                        + tenantId, e);
            }
            return switch (r.kind()) {
                case VALID -> r.policy();
                case DELETED -> throw new IllegalArgumentException("tombstone"); // not stored: cannot happen
                case INVALID -> throw new IllegalArgumentException(r.error());
            };
        };
    }
}
