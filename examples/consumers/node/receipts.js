// Hand-off receipts (the same as ../python/receipts.py and the Java kit's dev.baton.consumer.SnapshotReceipts): what
// a consumer sends to baton.handoff-receipts for a snapshot it hands to a receiving agent (docs/operations.md,
// "Hand-off receipts and the cost ledger"). acknowledge() when the agent starts from the snapshot, reportOutcome()
// when its work ends; key each with key() (the snapshot's session, as the session events are keyed) and send
// toJson() to a topic of a baton.format=json deployment.
//
// A receipt is an object with HandoffReceipt's field names: snapshot_id, content_sha256, receiver_model,
// budget_tokens, started_at (a Date), outcome, tokens_spent, dialect (the receiver dialect the request was built in,
// docs/receivers.md, or null). The hash sent is the snapshot's own content_sha256:
// send the snapshot to the agent unchanged, or Baton dead-letters the receipt as RECEIPT_HASH_MISMATCH.
'use strict';

const OUTCOMES = Object.freeze(['RESOLVED', 'FAILED', 'HANDED_BACK', 'ABANDONED']);

// The record key of a snapshot's receipts: tenant_id/session_id.
const key = (snapshot) => `${snapshot.tenant_id}/${snapshot.session_id}`;

// The receipt sent when the receiver starts from `snapshot`; model, budget and dialect may be null.
function acknowledge(snapshot, receiverModel, budgetTokens, startedAt, dialect = null) {
  if (!snapshot.content_sha256) throw new Error('the snapshot has no content_sha256');
  if (!(startedAt instanceof Date) || Number.isNaN(startedAt.getTime())) throw new Error('startedAt must be a valid Date');
  return {
    snapshot_id: snapshot.snapshot_id,
    content_sha256: snapshot.content_sha256,
    receiver_model: receiverModel ?? null,
    budget_tokens: budgetTokens ?? null,
    started_at: startedAt,
    outcome: null,
    tokens_spent: null,
    dialect: dialect ?? null,
  };
}

// The receipt sent when the work that started with `started` ends (`started` is left as it was).
function reportOutcome(started, outcome, tokensSpent) {
  if (!OUTCOMES.includes(outcome)) throw new Error(`outcome must be one of ${OUTCOMES.join(', ')}, got '${outcome}'`);
  if (!Number.isSafeInteger(tokensSpent) || tokensSpent < 0) {
    throw new Error(`tokensSpent must be a whole number >= 0: ${tokensSpent}`);
  }
  return { ...started, outcome, tokens_spent: tokensSpent };
}

// An instant as Java's Instant.toString writes it (the Java kit's form): no fraction for whole seconds, else
// milliseconds (a Date holds no finer time).
const instantText = (date) => date.toISOString().replace(/\.000Z$/, 'Z');

// The JSON form of a receipt (for baton.format=json): the schema's field names, absent fields left out, an ISO-8601
// instant; the same text as the Java and Python kits write.
function toJson(receipt) {
  const out = { snapshot_id: receipt.snapshot_id, content_sha256: receipt.content_sha256 };
  if (receipt.receiver_model != null) out.receiver_model = receipt.receiver_model;
  if (receipt.budget_tokens != null) out.budget_tokens = receipt.budget_tokens;
  out.started_at = instantText(receipt.started_at);
  if (receipt.outcome != null) out.outcome = receipt.outcome;
  if (receipt.tokens_spent != null) out.tokens_spent = receipt.tokens_spent;
  if (receipt.dialect != null) out.dialect = receipt.dialect;
  return JSON.stringify(out);
}

module.exports = { OUTCOMES, key, acknowledge, reportOutcome, instantText, toJson };
