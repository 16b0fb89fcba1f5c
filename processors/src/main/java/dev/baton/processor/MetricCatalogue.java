package dev.baton.processor;

import java.util.List;

/**
 * Every metric Baton defines, in one place: its name in Kafka Streams' registry ({@link TaskSensors}, group
 * {@value TaskSensors#GROUP}, per task), its application-wide Micrometer meter ({@code ApplicationMeters} and the
 * HTTP server's own meters in module {@code service}), kind, unit, description and labels. docs/operations.md lists
 * the Prometheus names ({@link #prometheusName()}) and a test holds it to this catalogue; the alert rules and the
 * dashboard under deploy/ name them too, so a name here does not change lightly.
 */
public enum MetricCatalogue {
    APPLIED_TURNS("applied-turns-total", "baton.applied.turns", Kind.COUNTER,
            "Turns applied in seq order or held for a gap"),
    DUPLICATE_TURNS("duplicate-turns-total", "baton.duplicate.turns", Kind.COUNTER,
            "Turns ignored because their seq was already applied or held"),
    DUPLICATE_HANDOFFS("duplicate-handoffs-total", "baton.duplicate.handoffs", Kind.COUNTER,
            "Hand-offs ignored because their handoff_id was seen"),
    SNAPSHOTS_EMITTED("snapshots-emitted-total", "baton.snapshots.emitted", Kind.COUNTER,
            "ContextSnapshots written to the snapshots topic"),
    PARKED_HANDOFFS("parked-handoffs-total", "baton.parked.handoffs", Kind.COUNTER,
            "Hand-offs that waited for their as_of_seq"),
    EXPIRED_SESSIONS("expired-sessions-total", "baton.expired.sessions", Kind.COUNTER,
            "Session states deleted after Closed + grace or the idle TTL"),
    PUNCTUATION_FAILURES("punctuation-failures-total", "baton.punctuation.failures", Kind.COUNTER,
            "Sessions whose wall-clock visit failed (logged, skipped)"),
    DEAD_LETTERS("dead-letters-total", "baton.dead.letters", Kind.COUNTER,
            "Records sent to the dead-letter topic, per code", null, Aggregate.SUM, List.of("code")),
    RENDER("render-total", "baton.render", Kind.COUNTER, "ContextEngine.render calls"),
    RENDER_TIME("render-time-ms-total", "baton.render.time", Kind.COUNTER, "Time spent in ContextEngine.render",
            "milliseconds", Aggregate.SUM, List.of()),
    RENDER_TIME_MAX("render-time-ms-max", "baton.render.time.max", Kind.GAUGE,
            "Longest ContextEngine.render in the current window", "milliseconds", Aggregate.MAX, List.of()),
    /** Per task only: an average does not sum over tasks, so no meter. */
    RENDER_TIME_AVG("render-time-ms-avg", null, Kind.GAUGE, "Average time of one ContextEngine.render"),
    DECODED_STATE_CACHE_BYTES("decoded-state-cache-bytes", "baton.decoded.state.cache", Kind.GAUGE,
            "Weight held by the decoded-state caches (each bounded by baton.state.cache.max.bytes)", "bytes",
            Aggregate.SUM, List.of()),
    DECODED_STATE_CACHE_SESSIONS("decoded-state-cache-sessions", "baton.decoded.state.cache.sessions", Kind.GAUGE,
            "Decoded sessions held by the decoded-state caches"),
    // Counts since the task was created on this instance (a task that moves starts again at 0).
    DECODED_STATE_CACHE_HITS("decoded-state-cache-hits-total", "baton.decoded.state.cache.hits", Kind.COUNTER,
            "Events whose session state was found decoded in a decoded-state cache"),
    DECODED_STATE_CACHE_MISSES("decoded-state-cache-misses-total", "baton.decoded.state.cache.misses", Kind.COUNTER,
            "Events whose stored session state was read and decoded (not in a decoded-state cache)"),
    // Counted by the global thread's policy store updater; every start re-reads the whole policies topic, so a refused
    // record still on the topic is counted again on each instance at each start.
    POLICY_RECORDS_REFUSED("policy-records-refused-total", "baton.policy.records.refused", Kind.COUNTER,
            "Tenant policy records refused by the policy store (invalid or unreadable): the tenant keeps its last "
                    + "valid policy"),
    // Hand-off receipts and the cost ledger per tenant (issue 24). "tenant" is an allow-listed tenant or "other".
    TENANT_SNAPSHOTS("tenant-snapshots-total", "baton.tenant.snapshots", Kind.COUNTER,
            "Snapshots written, per tenant", null, Aggregate.SUM, List.of("tenant")),
    TENANT_SNAPSHOT_BYTES("tenant-snapshot-bytes-total", "baton.tenant.snapshot", Kind.COUNTER,
            "Bytes of the snapshot values written, per tenant", "bytes", Aggregate.SUM, List.of("tenant")),
    TENANT_TRANSCRIPT_TOKENS("tenant-transcript-tokens-total", "baton.tenant.transcript.tokens", Kind.COUNTER,
            "Tokens of the snapshots' transcripts, per tenant; count=exact (the policy counts them) or estimate "
                    + "(characters / 4)", null, Aggregate.SUM, List.of("tenant", "count")),
    TENANT_BRICK_TOKENS("tenant-brick-tokens-total", "baton.tenant.brick.tokens", Kind.COUNTER,
            "Tokens of the snapshots' bricks, per tenant; count=exact or estimate", null, Aggregate.SUM,
            List.of("tenant", "count")),
    TENANT_RECEIVER_TOKENS("tenant-receiver-tokens-total", "baton.tenant.receiver.tokens", Kind.COUNTER,
            "Tokens the receivers reported spending (receipts with an outcome), per tenant", null, Aggregate.SUM,
            List.of("tenant")),
    TENANT_OUTCOMES("tenant-outcomes-total", "baton.tenant.outcomes", Kind.COUNTER,
            "Hand-off outcomes reported by receivers, per tenant and outcome", null, Aggregate.SUM,
            List.of("tenant", "outcome")),
    UNACKNOWLEDGED_HANDOFFS("unacknowledged-handoffs", "baton.unacknowledged.handoffs", Kind.GAUGE,
            "Snapshots still without a receipt receipt_timeout_millis after they were written, per tenant", null,
            Aggregate.SUM, List.of("tenant")),
    DUPLICATE_RECEIPTS("duplicate-receipts-total", "baton.duplicate.receipts", Kind.COUNTER,
            "Receipts ignored because the snapshot was already acknowledged (or its outcome already reported)"),
    LATE_RECEIPTS("late-receipts-total", "baton.late.receipts", Kind.COUNTER,
            "First receipts that came after their snapshot was counted as unacknowledged"),
    HELD_RECEIPTS("held-receipts-total", "baton.held.receipts", Kind.COUNTER,
            "Receipts that came before their snapshot and waited for it"),
    // Latency histograms (issue 33): Micrometer timers fed through LatencyRecorder, no Kafka Streams metric behind
    // them; per tenant label; the Prometheus name is the buckets' series (with _count, _sum and _max beside it).
    HANDOFF_SNAPSHOT_LATENCY(null, "baton.handoff.snapshot.latency", Kind.HISTOGRAM,
            "From a hand-off record's timestamp to its snapshot handed to the producer (hand-offs ready on arrival)",
            "seconds", Aggregate.SUM, List.of("tenant")),
    HANDOFF_RENDER(null, "baton.handoff.render", Kind.HISTOGRAM,
            "Rendering of one hand-off's snapshot (every render of it)", "seconds", Aggregate.SUM, List.of("tenant")),
    RECEIPT_OUTCOME_LATENCY(null, "baton.receipt.outcome.latency", Kind.HISTOGRAM,
            "From a receipt record's timestamp to its outcome handed to the producer", "seconds", Aggregate.SUM,
            List.of("tenant")),
    /** The HTTP server's own (module service): no Kafka Streams metric behind it. */
    HTTP_TOKENS_VALID(null, "baton.http.tokens.valid", Kind.GAUGE,
            "1 while the query tokens file is valid (or none is configured), 0 while it cannot be read or is invalid "
                    + "and every token is revoked (fail closed)"),
    HTTP_TOKENS_RELOAD_FAILURES(null, "baton.http.tokens.reload.failures", Kind.COUNTER,
            "Times the query tokens file could not be read or parsed and every token was revoked");

    /**
     * What a reader of the meter may assume: a counter only grows (a moved task restarts its share at 0); a histogram
     * is a Micrometer timer with fixed Prometheus buckets, counted since the instance started.
     */
    public enum Kind { COUNTER, GAUGE, HISTOGRAM }

    /** How the application-wide meter combines the tasks' values. */
    public enum Aggregate { SUM, MAX }

    private final String streamsName;
    private final String meterName;
    private final Kind kind;
    private final String description;
    private final String unit;
    private final Aggregate aggregate;
    private final List<String> labels;

    MetricCatalogue(String streamsName, String meterName, Kind kind, String description) {
        this(streamsName, meterName, kind, description, null, Aggregate.SUM, List.of());
    }

    MetricCatalogue(String streamsName, String meterName, Kind kind, String description, String unit,
                    Aggregate aggregate, List<String> labels) {
        this.streamsName = streamsName;
        this.meterName = meterName;
        this.kind = kind;
        this.description = description;
        this.unit = unit;
        this.aggregate = aggregate;
        this.labels = labels;
    }

    /** The name in Kafka Streams' registry (per task), or null for a meter with no Streams metric behind it. */
    public String streamsName() {
        return streamsName;
    }

    /** The Micrometer meter's name, or null for a per-task metric with no application-wide meter. */
    public String meterName() {
        return meterName;
    }

    public Kind kind() {
        return kind;
    }

    public String description() {
        return description;
    }

    /** Micrometer's base unit, or null. */
    public String unit() {
        return unit;
    }

    public Aggregate aggregate() {
        return aggregate;
    }

    /** Labels beyond the per-task tags ({@code task-id}, {@code thread-id}) that the meter keeps. */
    public List<String> labels() {
        return labels;
    }

    /**
     * The name on {@code /metrics}, as Micrometer's Prometheus registry writes it: dots become underscores, then the
     * unit, then {@code _total} for a counter, {@code _bucket} for a histogram (whose {@code _count}, {@code _sum} and
     * {@code _max} series share the stem). Null when there is no meter.
     */
    public String prometheusName() {
        if (meterName == null) return null;
        String suffix = switch (kind) {
            case COUNTER -> "_total";
            case GAUGE -> "";
            case HISTOGRAM -> "_bucket";
        };
        return meterName.replace('.', '_') + (unit == null ? "" : "_" + unit) + suffix;
    }
}
