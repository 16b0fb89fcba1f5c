package dev.baton.consumer;

import java.time.Instant;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.HandoffReceipt;
import dev.baton.avro.HandoffResult;

/**
 * The receipts a consumer sends to {@code baton.handoff-receipts} for a snapshot it hands to a receiving agent
 * (docs/operations.md, "Hand-off receipts and the cost ledger"): {@link #acknowledge} when the agent starts from the
 * snapshot, {@link #reportOutcome} when its work ends. Key each receipt with {@link #key} (the snapshot's session, as
 * the session events are keyed) and produce it with the same partitioner as the session events, as Avro
 * ({@code HandoffReceipt}) or, for a {@code baton.format=json} deployment, as {@link #toJson}.
 *
 * <pre>{@code
 * HandoffReceipt started = SnapshotReceipts.acknowledge(snapshot, "claude-opus", 200_000L, Instant.now());
 * producer.send(new ProducerRecord<>("baton.handoff-receipts", SnapshotReceipts.key(snapshot), started));
 * // ... the agent works ...
 * producer.send(new ProducerRecord<>("baton.handoff-receipts", SnapshotReceipts.key(snapshot),
 *         SnapshotReceipts.reportOutcome(started, HandoffResult.RESOLVED, tokensSpent)));
 * }</pre>
 * The hash sent is the snapshot's own {@code content_sha256}: send the snapshot to the agent unchanged, or Baton
 * dead-letters the receipt as {@code RECEIPT_HASH_MISMATCH}.
 */
public final class SnapshotReceipts {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private SnapshotReceipts() {
    }

    /** The record key of a snapshot's receipts: {@code tenant_id/session_id}. */
    public static String key(ContextSnapshot snapshot) {
        return snapshot.getTenantId() + "/" + snapshot.getSessionId();
    }

    /** The record key of a JSON-form snapshot's receipts. */
    public static String key(JsonNode snapshot) {
        return snapshot.path("tenant_id").asText() + "/" + snapshot.path("session_id").asText();
    }

    /** The receipt sent when the receiver starts from {@code snapshot}; model and budget may be null. */
    public static HandoffReceipt acknowledge(ContextSnapshot snapshot, String receiverModel, Long budgetTokens,
                                             Instant startedAt) {
        return acknowledge(snapshot, receiverModel, budgetTokens, startedAt, null);
    }

    /**
     * The receipt sent when the receiver starts from {@code snapshot}, naming the receiver dialect its request was
     * built in ({@code dev.baton.consumer.dialect.Dialect}'s name, docs/receivers.md); model, budget and dialect may
     * be null.
     */
    public static HandoffReceipt acknowledge(ContextSnapshot snapshot, String receiverModel, Long budgetTokens,
                                             Instant startedAt, String dialect) {
        return acknowledge(snapshot.getSnapshotId(), snapshot.getContentSha256(), receiverModel, budgetTokens,
                startedAt, dialect);
    }

    /** The receipt sent when the receiver starts from a JSON-form snapshot. */
    public static HandoffReceipt acknowledge(JsonNode snapshot, String receiverModel, Long budgetTokens,
                                             Instant startedAt) {
        return acknowledge(snapshot, receiverModel, budgetTokens, startedAt, null);
    }

    /** The receipt sent when the receiver starts from a JSON-form snapshot, naming the request's dialect. */
    public static HandoffReceipt acknowledge(JsonNode snapshot, String receiverModel, Long budgetTokens,
                                             Instant startedAt, String dialect) {
        return acknowledge(snapshot.path("snapshot_id").asText(), snapshot.path("content_sha256").asText(),
                receiverModel, budgetTokens, startedAt, dialect);
    }

    static HandoffReceipt acknowledge(String snapshotId, String contentSha256, String receiverModel,
                                      Long budgetTokens, Instant startedAt, String dialect) {
        return HandoffReceipt.newBuilder()
                .setSnapshotId(Objects.requireNonNull(snapshotId))
                .setContentSha256(Objects.requireNonNull(contentSha256, "the snapshot has no content_sha256"))
                .setReceiverModel(receiverModel)
                .setBudgetTokens(budgetTokens)
                .setStartedAt(Objects.requireNonNull(startedAt))
                .setDialect(dialect)
                .build();
    }

    /** The receipt sent when the work that started with {@code started} ends. */
    public static HandoffReceipt reportOutcome(HandoffReceipt started, HandoffResult outcome, long tokensSpent) {
        if (tokensSpent < 0) throw new IllegalArgumentException("tokensSpent must be >= 0: " + tokensSpent);
        return HandoffReceipt.newBuilder(started)
                .setOutcome(Objects.requireNonNull(outcome))
                .setTokensSpent(tokensSpent)
                .build();
    }

    /** The JSON form of a receipt (for {@code baton.format=json}): the schema's field names, an ISO-8601 instant. */
    public static String toJson(HandoffReceipt receipt) {
        ObjectNode o = NODES.objectNode();
        o.put("snapshot_id", receipt.getSnapshotId());
        o.put("content_sha256", receipt.getContentSha256());
        if (receipt.getReceiverModel() != null) o.put("receiver_model", receipt.getReceiverModel());
        if (receipt.getBudgetTokens() != null) o.put("budget_tokens", receipt.getBudgetTokens());
        o.put("started_at", receipt.getStartedAt().toString());
        if (receipt.getOutcome() != null) o.put("outcome", receipt.getOutcome().name());
        if (receipt.getTokensSpent() != null) o.put("tokens_spent", receipt.getTokensSpent());
        if (receipt.getDialect() != null) o.put("dialect", receipt.getDialect());
        return o.toString();
    }
}
