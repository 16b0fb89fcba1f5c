package dev.baton.processor;

import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.markers.Markers;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.policy.Policy;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins hand-off receipts with the snapshots Baton wrote, in the task that holds the session (receipts are keyed by
 * session like the events, so no repartition). Two inputs: {@link SnapshotEmitted} from the snapshot writer, once per
 * snapshot written, and {@link Receipt} from the receipts topic's decoder. Per session it keeps a
 * {@link HandoffLedger} (store {@value #LEDGER_STORE}); a receipt
 * <ul>
 *   <li>whose snapshot is in the ledger and whose {@code content_sha256} matches is applied: the first one
 *       acknowledges the snapshot, one with an outcome ends it; each forwards a {@link JoinedOutcome};</li>
 *   <li>that repeats what the ledger already has (a second start, a second outcome) is a duplicate: ignored, counted;</li>
 *   <li>whose hash differs is dead-lettered {@code RECEIPT_HASH_MISMATCH} (the receiver started from another
 *       context than Baton's);</li>
 *   <li>whose snapshot is not in the ledger is held (the receipts topic can be read ahead of the events topic) until
 *       the snapshot is written, and dead-lettered {@code UNKNOWN_SNAPSHOT} when it is not written within the tenant's
 *       {@code receipt_timeout_millis}, or when more than {@value HandoffLedger#MAX_HELD} wait.</li>
 * </ul>
 * A snapshot without a receipt {@code receipt_timeout_millis} after it was written counts as unacknowledged (gauge
 * {@code unacknowledged-handoffs}, per tenant label) until a receipt comes (counted as late) or the ledger forgets it.
 * The wall-clock punctuator finds what is due through a timer index (store {@value #TIMER_STORE}, the same layout as
 * {@link SessionTimerIndex}; the unacknowledged snapshots also have a key {@code ~over/<snapshot id>} there, so that
 * the gauge is rebuilt after a restart without reading every ledger). A ledger is deleted after the tenant's idle TTL
 * without a snapshot or receipt.
 */
public final class HandoffReceiptProcessor implements Processor<String, Object, String, Object> {
    public static final String LEDGER_STORE = "baton-handoff-ledger";
    public static final String TIMER_STORE = "baton-receipt-timers";
    static final String OVERDUE_PREFIX = "~over/";

    private static final Logger LOG = LoggerFactory.getLogger(HandoffReceiptProcessor.class);

    private final SessionProcessorOptions options;
    private final String outcomeChild;
    private final TenantLabels labels;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, byte[]> ledgers;
    private KeyValueStore<String, Long> timerStore;
    private SessionTimerIndex timers;
    private TenantPolicies policies;
    private TaskSensors metrics;
    private LatencyRecorder latency = LatencyRecorder.NONE;
    private final Map<String, long[]> overdue = new HashMap<>();
    private Cancellable punctuator;

    public HandoffReceiptProcessor(SessionProcessorOptions options, String outcomeChild, TenantLabels labels) {
        this.options = options;
        this.outcomeChild = outcomeChild;
        this.labels = labels;
    }

    public static List<StoreBuilder<?>> storeBuilders() {
        return List.of(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(LEDGER_STORE), Serdes.String(),
                        Serdes.ByteArray()).withLoggingEnabled(Map.of()).withCachingEnabled(),
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TIMER_STORE), Serdes.String(),
                        Serdes.Long()).withLoggingEnabled(Map.of()).withCachingEnabled());
    }

    /** The brick line of the session's previous escalation's outcome, or null (no ledger, or no outcome yet). */
    public static String previousOutcome(ReadOnlyKeyValueStore<String, byte[]> ledgers, String sessionKey) {
        byte[] bytes = ledgers.get(sessionKey);
        return bytes == null ? null : HandoffLedger.decode(bytes).previousOutcome();
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.ledgers = context.getStateStore(LEDGER_STORE);
        this.timerStore = context.getStateStore(TIMER_STORE);
        this.timers = new SessionTimerIndex(timerStore);
        ReadOnlyKeyValueStore<String, byte[]> policyStore =
                options.policyStore() == null ? null : context.getStateStore(options.policyStore());
        this.policies = new TenantPolicies(policyStore, options.policyDecoder(), options.defaultPolicy());
        this.metrics = new TaskSensors(context.metrics(), context.taskId().toString(), "receipts");
        this.latency = LatencyRecorder.from(context.appConfigs());
        // the unacknowledged snapshots of this task, as the timer store remembers them (after a restart too)
        try (KeyValueIterator<String, Long> it = timerStore.range(OVERDUE_PREFIX, "~over0")) {
            while (it.hasNext()) {
                KeyValue<String, Long> kv = it.next();
                String tenant = kv.key.substring(OVERDUE_PREFIX.length(), kv.key.indexOf('/', OVERDUE_PREFIX.length()));
                overdueCount(labels.label(tenant))[0]++;
            }
        }
        if (options.wallClockPunctuation()) {
            punctuator = context.schedule(options.punctuateInterval(), PunctuationType.WALL_CLOCK_TIME,
                    this::punctuate);
        }
    }

    @Override
    public void process(Record<String, Object> record) {
        long now = context.currentSystemTimeMs();
        if (record.value() instanceof SnapshotEmitted s) {
            visit(s.session().toString(), now, record.timestamp(), false, (l, out) -> written(l, s, now, out));
        } else if (record.value() instanceof Receipt r) {
            visit(r.session().toString(), now, record.timestamp(), true, (l, out) -> received(l, r, now, out));
        } else {
            throw new IllegalArgumentException("not a snapshot notice or a receipt: " + record.value());
        }
    }

    private interface Step {
        void apply(HandoffLedger ledger, List<Object> out);
    }

    /** Load the session's ledger, apply, store it and its timer, forward what left. */
    private void visit(String key, long now, long timestamp, boolean receipt, Step step) {
        byte[] bytes = ledgers.get(key);
        HandoffLedger ledger = bytes == null ? new HandoffLedger() : HandoffLedger.decode(bytes);
        Policy policy = policies.forTenant(SessionKey.parse(key).orElseThrow().tenantId());
        long before = bytes == null ? SessionTimerIndex.NEVER : due(ledger, policy);
        ledger.lastActivityMillis = now;
        List<Object> out = new ArrayList<>();
        step.apply(ledger, out);
        ledgers.put(key, ledger.encode());
        if (options.wallClockPunctuation()) timers.move(key, before, due(ledger, policy));
        forward(key, out, timestamp, receipt);
    }

    private static long due(HandoffLedger ledger, Policy policy) {
        return ledger.nextDueMillis(policy.receiptTimeoutMillis(), policy.idleTtlMillis());
    }

    private void written(HandoffLedger ledger, SnapshotEmitted s, long now, List<Object> out) {
        String tenant = labels.label(s.session().tenantId());
        HandoffLedger.Entry entry = new HandoffLedger.Entry(s, now);
        // a hand-off id written again (Baton forgot it) replaces its older snapshot
        HandoffLedger.Entry replaced = ledger.find(s.handoffId());
        if (replaced != null && replaced.overdue) notOverdue(replaced);
        HandoffLedger.Entry forgotten = ledger.add(entry);
        if (forgotten != null && forgotten.overdue) notOverdue(forgotten);
        metrics.count(MetricCatalogue.TENANT_SNAPSHOTS, 1, "tenant", tenant);
        metrics.count(MetricCatalogue.TENANT_SNAPSHOT_BYTES, s.snapshotBytes(), "tenant", tenant);
        String kind = s.exactEncoding() != null ? "exact" : "estimate";
        metrics.count(MetricCatalogue.TENANT_TRANSCRIPT_TOKENS, s.transcriptTokens(), "tenant", tenant, "count", kind);
        metrics.count(MetricCatalogue.TENANT_BRICK_TOKENS, s.brickTokens(), "tenant", tenant, "count", kind);
        // receipts that came before their snapshot, in the order they came
        for (HandoffLedger.Held h : ledger.takeHeld(s.handoffId())) {
            apply(ledger, entry, h.receipt(), h.arrivedAtMillis(), out);
        }
    }

    private void received(HandoffLedger ledger, Receipt r, long now, List<Object> out) {
        HandoffLedger.Entry entry = ledger.find(r.handoffId());
        if (entry != null) {
            apply(ledger, entry, r, now, out);
            return;
        }
        metrics.count(MetricCatalogue.HELD_RECEIPTS, 1);
        HandoffLedger.Held pushed = ledger.hold(new HandoffLedger.Held(r, now));
        if (pushed != null) {
            out.add(unknown(pushed.receipt(), "more than " + HandoffLedger.MAX_HELD
                    + " receipts of this session wait for their snapshot; the oldest is refused"));
        }
    }

    private void apply(HandoffLedger ledger, HandoffLedger.Entry e, Receipt r, long receivedAt, List<Object> out) {
        if (!e.snapshot.contentSha256().equals(r.contentSha256())) {
            out.add(new Departure.DeadLetterOut(ErrorCode.RECEIPT_HASH_MISMATCH, "receipt for snapshot "
                    + r.snapshotId() + " names content_sha256 " + r.contentSha256() + "; Baton wrote "
                    + e.snapshot.contentSha256(), r.rawKey(), r.rawValue()));
            return;
        }
        boolean duplicate = r.outcome() == null ? e.acknowledged() : e.outcome != null;
        if (duplicate) {
            metrics.count(MetricCatalogue.DUPLICATE_RECEIPTS, 1);
            return;
        }
        if (!e.acknowledged()) {
            e.acknowledgedAtMillis = receivedAt;
            e.startedAtMillis = r.startedAtMillis();
            if (e.overdue) {
                metrics.count(MetricCatalogue.LATE_RECEIPTS, 1);
                notOverdue(e);
            }
        }
        // a later receipt fills what an earlier one left out
        if (r.receiverModel() != null) e.receiverModel = r.receiverModel();
        if (r.budgetTokens() != null) e.budgetTokens = r.budgetTokens();
        if (r.outcome() != null) {
            e.outcome = r.outcome();
            e.tokensSpent = r.tokensSpent();
            SnapshotEmitted s = e.snapshot;
            ledger.previousOutcome = Markers.previousHandoff(e.receiverModel != null ? e.receiverModel : s.toAgent(),
                    s.asOfSeq(), r.outcome().words());
            String tenant = labels.label(s.session().tenantId());
            metrics.count(MetricCatalogue.TENANT_OUTCOMES, 1, "tenant", tenant, "outcome", r.outcome().name());
            if (r.tokensSpent() != null) {
                metrics.count(MetricCatalogue.TENANT_RECEIVER_TOKENS, r.tokensSpent(), "tenant", tenant);
            }
        }
        out.add(JoinedOutcome.of(e, r.dialect()));
    }

    private Departure.DeadLetterOut unknown(Receipt r, String why) {
        return new Departure.DeadLetterOut(ErrorCode.UNKNOWN_SNAPSHOT, "receipt for snapshot " + r.snapshotId()
                + ", which this session has not written: " + why, r.rawKey(), r.rawValue());
    }

    /** Wall clock: marks unacknowledged snapshots, refuses receipts that waited too long, forgets idle ledgers. */
    @SuppressWarnings("try") // the log context is for the log line inside: not read in the block
    void punctuate(long now) {
        for (String key : timers.takeDue(now, options.maxSessionsPerPunctuation())) {
            try {
                wallClock(key, now);
            } catch (RuntimeException e) {
                if (DeadLetters.isTransient(e)) throw e;
                metrics.punctuationFailure();
                try (LogContext log = LogContext.session(key)) {
                    LOG.error("Wall-clock visit of the hand-off ledger of {} failed; skipped", key, e);
                }
            }
        }
    }

    private void wallClock(String key, long now) {
        byte[] bytes = ledgers.get(key);
        if (bytes == null) return;
        HandoffLedger ledger = HandoffLedger.decode(bytes);
        Policy policy = policies.forTenant(SessionKey.parse(key).orElseThrow().tenantId());
        List<Object> out = new ArrayList<>();
        for (HandoffLedger.Held h : List.copyOf(ledger.held)) {
            if (SessionTimerIndex.saturatedAdd(h.arrivedAtMillis(), policy.receiptTimeoutMillis()) <= now) {
                ledger.held.remove(h);
                out.add(unknown(h.receipt(), "no such snapshot within receipt_timeout_millis ("
                        + policy.receiptTimeoutMillis() + " ms)"));
            }
        }
        if (SessionTimerIndex.saturatedAdd(ledger.lastActivityMillis, policy.idleTtlMillis()) <= now) {
            for (HandoffLedger.Entry e : ledger.entries) {
                if (e.overdue) notOverdue(e);
            }
            for (HandoffLedger.Held h : ledger.held) {
                out.add(unknown(h.receipt(), "the session's hand-off ledger expired"));
            }
            ledgers.delete(key);
        } else {
            for (HandoffLedger.Entry e : ledger.entries) {
                if (!e.acknowledged() && !e.overdue
                        && SessionTimerIndex.saturatedAdd(e.emittedAtMillis, policy.receiptTimeoutMillis()) <= now) {
                    e.overdue = true;
                    timerStore.put(overdueKey(e), 1L);
                    overdueCount(labels.label(e.snapshot.session().tenantId()))[0]++;
                }
            }
            ledgers.put(key, ledger.encode());
            long due = due(ledger, policy);
            if (due <= now) due = now + options.punctuateInterval().toMillis();
            timers.move(key, SessionTimerIndex.NEVER, due);
        }
        forward(key, out, now, false);
    }

    private void notOverdue(HandoffLedger.Entry e) {
        e.overdue = false;
        timerStore.delete(overdueKey(e));
        overdueCount(labels.label(e.snapshot.session().tenantId()))[0]--;
    }

    private static String overdueKey(HandoffLedger.Entry e) {
        return OVERDUE_PREFIX + e.snapshot.session().snapshotId(e.snapshot.handoffId());
    }

    private long[] overdueCount(String label) {
        return overdue.computeIfAbsent(label, l -> {
            long[] cell = new long[1];
            metrics.gauge(MetricCatalogue.UNACKNOWLEDGED_HANDOFFS, () -> cell[0], "tenant", l);
            return cell;
        });
    }

    /** The current count of unacknowledged snapshots of {@code label} in this task (tests). */
    long unacknowledged(String label) {
        long[] cell = overdue.get(label);
        return cell == null ? 0 : cell[0];
    }

    /**
     * @param receipt the record being processed is a receipt: its outcomes are timed from {@code timestamp} (the
     *                receipt record's) to now, once handed to the producer; a receipt held for its snapshot and
     *                applied when the snapshot comes is not timed
     */
    private void forward(String key, List<Object> out, long timestamp, boolean receipt) {
        for (Object o : out) {
            if (o instanceof JoinedOutcome j) {
                context.forward(new Record<String, Object>(key, j, timestamp, new RecordHeaders()), outcomeChild);
                if (receipt) {
                    latency.receiptToOutcome(SessionKey.parse(key).orElseThrow().tenantId(),
                            Math.max(0, System.currentTimeMillis() - timestamp));
                }
            } else if (o instanceof Departure.DeadLetterOut dl) {
                DeadLetters.forward(context, options.deadLetterChild(), timestamp, dl.key(), dl.value(), dl.code(),
                        dl.message());
            }
        }
    }

    @Override
    public void close() {
        if (punctuator != null) punctuator.cancel();
        if (metrics != null) metrics.close();
    }
}
