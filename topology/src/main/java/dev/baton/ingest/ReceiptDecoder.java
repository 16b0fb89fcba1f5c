package dev.baton.ingest;

import dev.baton.avro.HandoffReceipt;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.model.Excerpt;
import dev.baton.engine.model.Identifiers;
import dev.baton.engine.model.SessionKey;
import dev.baton.processor.Receipt;
import dev.baton.serde.AvroJson;
import dev.baton.serde.AvroReadException;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.JsonReadException;
import dev.baton.serde.SchemaRegistryClient;
import dev.baton.serde.SchemaRegistryUnavailableException;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads one record of {@code baton.handoff-receipts} (Avro {@code HandoffReceipt} in the Confluent wire format, or
 * JSON) into a {@link Receipt}, or a dead-letter verdict with the same codes as the session events: OVERSIZED (beyond
 * {@value #MAX_RECEIPT_BYTES} bytes: a receipt is small), MALFORMED, UNKNOWN_SCHEMA, INVALID_FIELD (a field missing,
 * a hash that is not 64 lowercase hex digits, a model name outside 1–128 of {@code [A-Za-z0-9._:/@-]}, a negative
 * budget or token count), INVALID_ID (a snapshot id that is not {@code tenant/session/handoff} of valid ids),
 * KEY_MISMATCH (the key is not the snapshot id's {@code tenant/session}). Never throws for bad input; a schema
 * registry that cannot be reached propagates. Thread-safe.
 */
public final class ReceiptDecoder {
    public static final int MAX_RECEIPT_BYTES = 16 * 1024;
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern MODEL = Pattern.compile("[A-Za-z0-9._:/@-]{1,128}");
    private static final Pattern DIALECT = Pattern.compile("[a-z0-9:._-]{1,64}");

    /** A receipt, or why it was refused. */
    public record Result(Receipt receipt, ErrorCode code, String message) {
        static Result reject(ErrorCode code, String message) {
            return new Result(null, code, message);
        }
    }

    private final ConfluentAvroCodec<HandoffReceipt> avro;

    private ReceiptDecoder(ConfluentAvroCodec<HandoffReceipt> avro) {
        this.avro = avro;
    }

    /** {@code avro} (with {@code registry}) or {@code json}. */
    public static ReceiptDecoder forFormat(String format, SchemaRegistryClient registry) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "avro" -> new ReceiptDecoder(new ConfluentAvroCodec<>(registry, HandoffReceipt.class));
            case "json" -> new ReceiptDecoder(null);
            default -> throw new IllegalArgumentException("unknown format '" + format + "': expected avro or json");
        };
    }

    public Result decode(byte[] key, byte[] value) {
        long size = (key == null ? 0L : key.length) + (value == null ? 0L : value.length);
        if (size > MAX_RECEIPT_BYTES) {
            return Result.reject(ErrorCode.OVERSIZED, "receipt has " + size + " bytes; the limit is "
                    + MAX_RECEIPT_BYTES);
        }
        HandoffReceipt r;
        try {
            if (value == null) return Result.reject(ErrorCode.MALFORMED, "receipt without a value");
            r = avro != null ? avro.deserialize(value) : AvroJson.read(value, HandoffReceipt.class);
        } catch (AvroReadException e) {
            return Result.reject(switch (e.kind()) {
                case MALFORMED -> ErrorCode.MALFORMED;
                case UNKNOWN_SCHEMA, WRONG_RECORD_TYPE -> ErrorCode.UNKNOWN_SCHEMA;
                case UNRESOLVABLE -> ErrorCode.INVALID_FIELD;
            }, e.getMessage());
        } catch (JsonReadException e) {
            return Result.reject(e.kind() == JsonReadException.Kind.MALFORMED ? ErrorCode.MALFORMED
                    : ErrorCode.INVALID_FIELD, e.getMessage());
        } catch (SchemaRegistryUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            return Result.reject(ErrorCode.MALFORMED, "receipt cannot be read: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + Excerpt.quote(e.getMessage())));
        }
        return validate(r, key, value);
    }

    static Result validate(HandoffReceipt r, byte[] key, byte[] value) {
        String id = r.getSnapshotId();
        String[] parts = id == null ? new String[0] : id.split("/", -1);
        if (parts.length != 3 || !Identifiers.isValidId(parts[0]) || !Identifiers.isValidId(parts[1])
                || !Identifiers.isValidId(parts[2])) {
            return Result.reject(ErrorCode.INVALID_ID, "snapshot_id is not {tenant_id}/{session_id}/{handoff_id}: "
                    + Excerpt.quote(String.valueOf(id)));
        }
        SessionKey session = new SessionKey(parts[0], parts[1]);
        String k = key == null ? null : new String(key, StandardCharsets.UTF_8);
        if (!session.toString().equals(k)) {
            return Result.reject(ErrorCode.KEY_MISMATCH, "key " + Excerpt.quote(String.valueOf(k))
                    + " is not the snapshot's " + session);
        }
        if (r.getContentSha256() == null || !SHA256.matcher(r.getContentSha256()).matches()) {
            return Result.reject(ErrorCode.INVALID_FIELD, "content_sha256 is not 64 lowercase hex digits");
        }
        if (r.getReceiverModel() != null && !MODEL.matcher(r.getReceiverModel()).matches()) {
            return Result.reject(ErrorCode.INVALID_FIELD, "receiver_model is not 1-128 characters of "
                    + "[A-Za-z0-9._:/@-]: " + Excerpt.quote(r.getReceiverModel()));
        }
        if (r.getBudgetTokens() != null && r.getBudgetTokens() < 0
                || r.getTokensSpent() != null && r.getTokensSpent() < 0) {
            return Result.reject(ErrorCode.INVALID_FIELD, "budget_tokens and tokens_spent must be >= 0");
        }
        if (r.getStartedAt() == null) return Result.reject(ErrorCode.INVALID_FIELD, "started_at is missing");
        if (r.getDialect() != null && !DIALECT.matcher(r.getDialect()).matches()) {
            return Result.reject(ErrorCode.INVALID_FIELD, "dialect is not 1-64 characters of [a-z0-9:._-]: "
                    + Excerpt.quote(r.getDialect()));
        }
        Receipt.Result outcome = r.getOutcome() == null ? null : Receipt.Result.valueOf(r.getOutcome().name());
        return new Result(new Receipt(session, parts[2], r.getContentSha256(), r.getReceiverModel(),
                r.getBudgetTokens(), r.getStartedAt().toEpochMilli(), outcome, r.getTokensSpent(), r.getDialect(), key,
                value), null,
                null);
    }
}
