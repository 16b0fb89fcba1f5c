"""Hand-off receipts (the same as ../node/receipts.js and the Java kit's dev.baton.consumer.SnapshotReceipts): what a
consumer sends to baton.handoff-receipts for a snapshot it hands to a receiving agent (docs/operations.md, "Hand-off
receipts and the cost ledger"). acknowledge() when the agent starts from the snapshot, report_outcome() when its work
ends; key each with key() (the snapshot's session, as the session events are keyed) and send to_json() to a topic of
a baton.format=json deployment.

A receipt is a dict with HandoffReceipt's field names: snapshot_id, content_sha256, receiver_model, budget_tokens,
started_at (a timezone-aware datetime), outcome, tokens_spent, dialect (the receiver dialect the request was built in,
docs/receivers.md, or None). The hash sent is the snapshot's own content_sha256:
send the snapshot to the agent unchanged, or Baton dead-letters the receipt as RECEIPT_HASH_MISMATCH."""
import datetime
import json

OUTCOMES = ("RESOLVED", "FAILED", "HANDED_BACK", "ABANDONED")


def key(snapshot):
    """The record key of a snapshot's receipts: tenant_id/session_id."""
    return f"{snapshot['tenant_id']}/{snapshot['session_id']}"


def acknowledge(snapshot, receiver_model, budget_tokens, started_at, dialect=None):
    """The receipt sent when the receiver starts from `snapshot`; model, budget and dialect may be None."""
    if not snapshot.get("content_sha256"):
        raise ValueError("the snapshot has no content_sha256")
    if started_at.tzinfo is None:
        # a naive datetime names no instant: Baton's started_at is one (UTC)
        raise ValueError("started_at must be timezone-aware, e.g. datetime.now(timezone.utc)")
    return {"snapshot_id": snapshot["snapshot_id"], "content_sha256": snapshot["content_sha256"],
            "receiver_model": receiver_model, "budget_tokens": budget_tokens, "started_at": started_at,
            "outcome": None, "tokens_spent": None, "dialect": dialect}


def report_outcome(started, outcome, tokens_spent):
    """The receipt sent when the work that started with `started` ends (`started` is left as it was)."""
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
    if isinstance(tokens_spent, bool) or not isinstance(tokens_spent, int) or tokens_spent < 0:
        raise ValueError(f"tokens_spent must be a whole number >= 0: {tokens_spent!r}")
    return {**started, "outcome": outcome, "tokens_spent": tokens_spent}


def instant_text(moment):
    """An instant as Java's Instant.toString writes it (the Java kit's form): UTC, 'Z', no fraction when it is whole
    seconds, else milliseconds, or microseconds when they are not whole milliseconds."""
    utc = moment.astimezone(datetime.timezone.utc)
    micros = utc.microsecond
    fraction = "" if micros == 0 else f".{micros // 1000:03d}" if micros % 1000 == 0 else f".{micros:06d}"
    return utc.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"


def to_json(receipt):
    """The JSON form of a receipt (for baton.format=json): the schema's field names, absent fields left out, an
    ISO-8601 instant; the same text as the Java and Node kits write."""
    out = {"snapshot_id": receipt["snapshot_id"], "content_sha256": receipt["content_sha256"]}
    for name in ("receiver_model", "budget_tokens"):
        if receipt.get(name) is not None:
            out[name] = receipt[name]
    out["started_at"] = instant_text(receipt["started_at"])
    for name in ("outcome", "tokens_spent", "dialect"):
        if receipt.get(name) is not None:
            out[name] = receipt[name]
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))
