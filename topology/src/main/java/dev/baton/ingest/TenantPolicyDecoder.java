package dev.baton.ingest;

import dev.baton.config.BatonConfig;
import dev.baton.engine.snapshot.SnapshotSize;

import dev.baton.avro.TenantPolicy;
import dev.baton.engine.model.Identifiers;
import dev.baton.engine.policy.Policy;
import dev.baton.processor.JTokkitTokenizers;
import dev.baton.serde.AvroJson;
import dev.baton.serde.AvroReadException;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.JsonReadException;
import dev.baton.serde.SchemaRegistryClient;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.avro.Schema;

import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

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
 * its {@code tenant_id} is not an id or differs from the key, or a value is out of range: sizes, budgets and counts
 * named in {@link #POSITIVE} must be &gt; 0, every other number &gt;= 0. Keeping the last good policy is the
 * caller's job. A null value (tombstone) is DELETED. {@code decode} never throws for bad input; an unreachable
 * registry throws {@link SchemaRegistryUnavailableException}. A token encoding (cap or counts) that
 * {@link JTokkitTokenizers} does not know makes the record INVALID. The mapping is by name (a {@code Policy} component
 * {@code fooBarChars} is the field {@code foo_bar_chars}), so it follows {@code Policy} as it grows.
 */
public final class TenantPolicyDecoder {

    /** Policy components that must be &gt; 0 (the others must be &gt;= 0). */
    public static final Set<String> POSITIVE = Set.of("transcriptBudgetChars", "minTranscriptBudgetChars",
            "manifestCapChars", "brickBudgetLocalChars", "brickBudgetCliChars", "brickResultCapChars", "brickTaskChars",
            "brickBriefChars", "brickMaxAgents", "maxWaitingHandoffs", "rememberedHandoffIds", "idleTtlMillis",
            "maxRecordBytes");

    public enum Kind { VALID, DELETED, INVALID }

    /** The outcome for one record: a policy (VALID), a tombstone (DELETED) or an error (INVALID). */
    public record Result(Kind kind, String tenantId, Policy policy, String error) {
    }

    private final ConfluentAvroCodec<TenantPolicy> avro; // null for JSON
    private final Policy base;
    /** A policy whose snapshots cannot fit this many bytes is INVALID ({@link BatonConfig#policyDoesNotFit}). */
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
        if (!Identifiers.isValidId(record.getTenantId())) {
            return new Result(Kind.INVALID, keyText, null, "tenant_id " + Excerpt.quote(record.getTenantId()) + " is not an id");
        }
        if (keyText != null && !keyText.equals(record.getTenantId())) {
            return new Result(Kind.INVALID, keyText, null, "key " + Excerpt.quote(keyText) + " is not the tenant_id "
                    + Excerpt.quote(record.getTenantId()));
        }
        Policy policy;
        try {
            policy = toPolicy(record, base);
        } catch (IllegalArgumentException e) {
            return new Result(Kind.INVALID, record.getTenantId(), null, e.getMessage());
        }
        String tooLarge = BatonConfig.policyDoesNotFit(policy,
                avro != null ? SnapshotSize.Encoding.AVRO : SnapshotSize.Encoding.JSON, maxOutputBytes);
        if (tooLarge != null) {
            return new Result(Kind.INVALID, record.getTenantId(), null, "invalid tenant policy: " + tooLarge);
        }
        return new Result(Kind.VALID, record.getTenantId(), policy, null);
    }

    /**
     * {@code base} with every non-null field of {@code record} applied.
     *
     * @throws IllegalArgumentException naming every out-of-range field
     */
    public static Policy toPolicy(TenantPolicy record, Policy base) {
        Policy.Builder builder = base.toBuilder();
        Schema schema = record.getSchema();
        List<String> errors = new ArrayList<>();
        for (RecordComponent component : Policy.class.getRecordComponents()) {
            Schema.Field field = schema.getField(snakeCase(component.getName()));
            if (field == null) continue; // a Policy value without a TenantPolicy field: not per tenant
            Object value = record.get(field.pos());
            if (value == null) continue;
            if (value instanceof Number n) {
                long min = POSITIVE.contains(component.getName()) ? 1 : 0;
                if (n.longValue() < min) {
                    errors.add(field.name() + " is " + n + "; must be " + (min == 1 ? "> 0" : ">= 0"));
                    continue;
                }
            }
            try {
                Policy.Builder.class.getField(component.getName()).set(builder, value);
            } catch (ReflectiveOperationException | IllegalArgumentException e) {
                errors.add(field.name() + " cannot be applied: " + e.getMessage());
            }
        }
        if (!errors.isEmpty()) throw new IllegalArgumentException("invalid tenant policy: " + String.join("; ", errors));
        Policy policy = builder.build();
        List<String> unknown = unknownEncodings(policy);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("invalid tenant policy: unknown token encoding(s) "
                    + String.join(", ", unknown) + "; expected one of "
                    + String.join(", ", JTokkitTokenizers.shared().encodings()));
        }
        return policy;
    }

    /** The encodings {@code policy} uses (token cap, token counts) that the tokenizers of this build do not know. */
    public static List<String> unknownEncodings(Policy policy) {
        List<String> unknown = new ArrayList<>();
        for (String e : policy.tokenEncodingsUsed()) {
            if (JTokkitTokenizers.shared().get(e) == null) unknown.add(Excerpt.quote(e));
        }
        return unknown;
    }

    /** A TenantPolicy record with every field set from {@code policy} (for producing policies in tests and demos). */
    public static TenantPolicy toRecord(String tenantId, Policy policy) {
        TenantPolicy record = new TenantPolicy();
        record.setTenantId(tenantId);
        for (RecordComponent component : Policy.class.getRecordComponents()) {
            Schema.Field field = record.getSchema().getField(snakeCase(component.getName()));
            if (field == null) continue;
            try {
                record.put(field.pos(), component.getAccessor().invoke(policy));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return record;
    }

    /** {@code transcriptBudgetChars} → {@code transcript_budget_chars}. */
    public static String snakeCase(String camel) {
        StringBuilder b = new StringBuilder(camel.length() + 8);
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) b.append('_').append(Character.toLowerCase(c));
            else b.append(c);
        }
        return b.toString();
    }
}
