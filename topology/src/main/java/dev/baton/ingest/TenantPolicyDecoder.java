package dev.baton.ingest;

import dev.baton.engine.model.Excerpt;
import dev.baton.avro.TenantPolicy;
import dev.baton.engine.model.Identifiers;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.policy.PolicyField;
import dev.baton.engine.snapshot.SnapshotSize;
import dev.baton.processor.JTokkitTokenizers;
import dev.baton.processor.SnapshotFit;
import dev.baton.serde.AvroJson;
import dev.baton.serde.AvroReadException;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.JsonReadException;
import dev.baton.serde.SchemaRegistryClient;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.avro.Schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@code baton.tenant-policies} records (a {@link TenantPolicy}, Avro wire format or JSON) into engine
 * {@link Policy} values: every absent or null field keeps the value of the base policy (the application's defaults).
 *
 * <pre>{@code
 * TenantPolicyDecoder decoder = TenantPolicyDecoder.avro(registry, Policy.defaults());
 * TenantPolicyDecoder.Result r = decoder.decode(key, value);
 * switch (r.kind()) { case VALID -> put(r.tenantId(), r.policy()); case DELETED -> remove(key);
 *                     case INVALID -> log(r.error()); }  // keep the tenant's last good policy
 * }</pre>
 *
 * <p>A record is rejected as a whole (kind INVALID, with a message naming every bad field) when it cannot be read,
 * its {@code tenant_id} is not an id or differs from the key, or the policy it makes is not valid
 * ({@link #validate}: {@link Policy#problems} and {@link SnapshotFit}, the same checks as the default policy of the
 * configuration). Keeping the last good policy is the global store's job ({@code TenantPolicyStoreUpdater}). A null
 * value (tombstone) is DELETED. {@code decode} never throws for bad input; an unreachable registry throws
 * {@link SchemaRegistryUnavailableException}. The mapping is by {@link PolicyField}: the field
 * {@link PolicyField#key()} of the record sets that value.
 */
public final class TenantPolicyDecoder {

    public enum Kind { VALID, DELETED, INVALID }

    /** The outcome for one record: a policy (VALID), a tombstone (DELETED) or an error (INVALID). */
    public record Result(Kind kind, String tenantId, Policy policy, String error) {
    }

    private final ConfluentAvroCodec<TenantPolicy> avro; // null for JSON
    private final Policy base;
    /** A policy whose snapshots cannot fit this many bytes is INVALID ({@link SnapshotFit}). */
    private final int maxOutputBytes;

    private TenantPolicyDecoder(ConfluentAvroCodec<TenantPolicy> avro, Policy base, int maxOutputBytes) {
        this.avro = avro;
        this.base = base;
        this.maxOutputBytes = maxOutputBytes;
    }

    /**
     * This decoder, also refusing (INVALID) a policy whose snapshots cannot fit a record of {@code maxOutputBytes}
     * ({@code baton.max-output-bytes}, docs/contract.md, "Bounded records"): the tenant keeps its last good policy.
     */
    public TenantPolicyDecoder withMaxOutputBytes(int maxOutputBytes) {
        return new TenantPolicyDecoder(avro, base, maxOutputBytes);
    }

    public static TenantPolicyDecoder avro(SchemaRegistryClient registry, Policy base) {
        return new TenantPolicyDecoder(new ConfluentAvroCodec<>(registry, TenantPolicy.class), base, Integer.MAX_VALUE);
    }

    public static TenantPolicyDecoder json(Policy base) {
        return new TenantPolicyDecoder(null, base, Integer.MAX_VALUE);
    }

    /** {@code avro} or {@code json}. */
    public static TenantPolicyDecoder forFormat(String format, SchemaRegistryClient registry, Policy base) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "avro" -> avro(registry, base);
            case "json" -> json(base);
            default -> throw new IllegalArgumentException("unknown format '" + format + "': expected avro or json");
        };
    }

    public Result decode(byte[] key, byte[] value) {
        String keyText = key == null ? null : new String(key, StandardCharsets.UTF_8);
        if (value == null) return new Result(Kind.DELETED, keyText, null, null);
        TenantPolicy record;
        try {
            record = avro != null ? avro.deserialize(value) : AvroJson.read(value, TenantPolicy.class);
        } catch (AvroReadException | JsonReadException e) {
            return new Result(Kind.INVALID, keyText, null, "tenant policy cannot be read: " + e.getMessage());
        } catch (SchemaRegistryUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            return new Result(Kind.INVALID, keyText, null, "tenant policy cannot be read: " + e);
        }
        return validate(keyText, record, base, avro != null ? SnapshotSize.Encoding.AVRO : SnapshotSize.Encoding.JSON,
                maxOutputBytes);
    }

    /**
     * The one check of a tenant's policy, for the policies topic and for anything that writes to it: the record's
     * {@code tenant_id} is an id and equals {@code key} (unless {@code key} is null), and {@code base} with the
     * record's fields applied is a valid policy whose snapshots fit {@code maxOutputBytes} in {@code encoding}.
     *
     * @return VALID with the policy, or INVALID with the reason (every bad field named); never DELETED
     */
    public static Result validate(String key, TenantPolicy record, Policy base, SnapshotSize.Encoding encoding,
                                  int maxOutputBytes) {
        if (!Identifiers.isValidId(record.getTenantId())) {
            return new Result(Kind.INVALID, key, null, "tenant_id " + Excerpt.quote(record.getTenantId()) + " is not an id");
        }
        if (key != null && !key.equals(record.getTenantId())) {
            return new Result(Kind.INVALID, key, null, "key " + Excerpt.quote(key) + " is not the tenant_id "
                    + Excerpt.quote(record.getTenantId()));
        }
        Policy policy;
        try {
            policy = toPolicy(record, base);
        } catch (IllegalArgumentException e) {
            return new Result(Kind.INVALID, record.getTenantId(), null, e.getMessage());
        }
        String tooLarge = SnapshotFit.whyNot(policy, encoding, maxOutputBytes);
        if (tooLarge != null) {
            return new Result(Kind.INVALID, record.getTenantId(), null, "invalid tenant policy: " + tooLarge);
        }
        return new Result(Kind.VALID, record.getTenantId(), policy, null);
    }

    /**
     * {@code base} with every non-null field of {@code record} applied, checked by {@link Policy#problems}.
     *
     * @throws IllegalArgumentException naming every bad field
     */
    public static Policy toPolicy(TenantPolicy record, Policy base) {
        Policy.Builder builder = base.toBuilder();
        Schema schema = record.getSchema();
        List<String> errors = new ArrayList<>();
        for (PolicyField f : PolicyField.values()) {
            Schema.Field field = schema.getField(f.key());
            if (field == null) continue; // a Policy value without a TenantPolicy field: not per tenant
            Object value = record.get(field.pos());
            if (value == null) continue;
            try {
                f.set(builder, value);
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
        }
        if (errors.isEmpty()) errors.addAll(builder.build().problems(JTokkitTokenizers.shared()));
        if (!errors.isEmpty()) throw new IllegalArgumentException("invalid tenant policy: " + String.join("; ", errors));
        return builder.build();
    }

    /** A TenantPolicy record with every field set from {@code policy} (for producing policies in tests and demos). */
    public static TenantPolicy toRecord(String tenantId, Policy policy) {
        TenantPolicy record = new TenantPolicy();
        record.setTenantId(tenantId);
        for (PolicyField f : PolicyField.values()) {
            Schema.Field field = record.getSchema().getField(f.key());
            if (field != null) record.put(field.pos(), f.get(policy));
        }
        return record;
    }
}
