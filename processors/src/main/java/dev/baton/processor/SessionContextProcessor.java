package dev.baton.processor;

import dev.baton.engine.snapshot.InputRange;
import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Identifiers;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.SnapshotSize;
import dev.baton.engine.state.HandoffOutcome;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.TurnOutcome;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The stateful heart of the topology: applies each decoded event to its session's state and forwards a
 * {@link Snapshot} for every hand-off that becomes ready. Sessions are kept by a {@link SessionRepository} (a small
 * skeleton per session and one stored entry per turn, so an event writes its own size plus the skeleton), with a
 * decoded-state cache and the timer index.
 *
 * <p>Every {@link Arrival} goes through one step, {@link #step}: load the session → apply (turn: {@code offerTurn},
 * APPLIED/HELD count as applied, DUPLICATE is counted, LATE_TURN is dead-lettered with the record's original bytes;
 * hand-off: {@code offerHandoff}, DUPLICATE counted, READY rendered, PARKED waits; Closed: {@code close}; settle:
 * {@code settleAll}; wall clock: {@code onWallClock}) → render the ready hand-offs → store (or delete an expired
 * session) → forward the {@link Departure}s. The snapshots are rendered before anything is stored or forwarded, so an
 * unexpected failure leaves the stored state as it was and dead-letters the record with {@link ErrorCode#INTERNAL}
 * (logged once per record) instead of killing the application.
 *
 * <p>A record with header {@value #CONTROL_HEADER} = {@value #SETTLE} (value ignored) is the backfill's end-of-input
 * signal for its session: every held gap is settled and every waiting hand-off released at once, without waiting
 * for the wall clock.
 *
 * <p>With wall-clock punctuation on, a punctuator runs every {@code punctuateInterval} and visits only the sessions
 * that the timer index ({@link SessionTimerIndex}, store {@value #TIMER_STORE}) says have something due, and deletes
 * sessions that {@code expired}. Backfill mode turns punctuation off; closed sessions then keep their state until the
 * end.
 *
 * <p>"Now" is always {@code context.currentSystemTimeMs()} (wall clock): gap holds, hand-off waits, grace and TTL
 * are measured in processing time, not event time. Snapshots themselves never depend on it (R10).
 */
public final class SessionContextProcessor implements Processor<String, InboundEvent, String, Object> {
    public static final String SESSION_STORE = SessionRepository.SKELETON_STORE;
    public static final String TIMER_STORE = "baton-session-timers";
    public static final String POLICY_STORE = "baton-tenant-policies";
    public static final String CONTROL_HEADER = "baton.control";
    public static final String SETTLE = "settle";
    /** Control signal handled by the decoder: commit once processed (the backfill's last record of a partition). */
    public static final String COMMIT = "commit";

    private static final Logger LOG = LoggerFactory.getLogger(SessionContextProcessor.class);

    /** Room kept in every record for its key, headers, the wire-format header and Kafka's record framing. */
    public static final int RECORD_OVERHEAD_BYTES = 4 * 1024;

    private final SessionProcessorOptions options;
    private final String ledgerStore;
    private final HandoffTracing tracing;
    private final HandoffTracing.Parked parked = new HandoffTracing.Parked();
    private ReadOnlyKeyValueStore<String, byte[]> ledgers;
    private ProcessorContext<String, Object> context;
    private SessionRepository sessions;
    private SessionTimerIndex timers;
    private TenantPolicies policies;
    private TaskSensors metrics;
    private LatencyRecorder latency = LatencyRecorder.NONE;
    private Cancellable punctuator;

    public SessionContextProcessor(SessionProcessorOptions options) {
        this(options, null);
    }

    /**
     * @param ledgerStore the hand-off ledger store ({@link HandoffReceiptProcessor#LEDGER_STORE}) when the topology
     *                    reads receipts: a snapshot's brick then reports the session's previous escalation's outcome;
     *                    null: no receipts
     */
    public SessionContextProcessor(SessionProcessorOptions options, String ledgerStore) {
        this(options, ledgerStore, HandoffTracing.OFF);
    }

    /**
     * @param tracing the hand-off spans (docs/operations.md, "Tracing"): the hand-off event's span is current while
     *                its record is processed (started by the decoder); this processor records the hand-off's outcome
     *                on it and emits each snapshot under its span with that span's {@code traceparent} header
     */
    public SessionContextProcessor(SessionProcessorOptions options, String ledgerStore, HandoffTracing tracing) {
        this.options = options;
        this.ledgerStore = ledgerStore;
        this.tracing = tracing;
    }

    /** The persistent, changelogged session skeleton store (String key, {@code StateFormat} bytes). */
    public static StoreBuilder<KeyValueStore<String, byte[]>> sessionStoreBuilder() {
        return SessionRepository.skeletonStoreBuilder();
    }

    /** Every store the processor needs besides the tenant policies: skeletons, entries, hand-off ids, timers. */
    public static List<StoreBuilder<?>> storeBuilders() {
        return List.of(SessionRepository.skeletonStoreBuilder(), SessionRepository.entryStoreBuilder(),
                SessionRepository.handoffIdStoreBuilder(), timerStoreBuilder(), SessionProvenance.storeBuilder());
    }

    /** The persistent, changelogged timer index (see {@link SessionTimerIndex}). */
    public static StoreBuilder<KeyValueStore<String, Long>> timerStoreBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TIMER_STORE), Serdes.String(),
                Serdes.Long()).withLoggingEnabled(Map.of()).withCachingEnabled();
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.sessions = new SessionRepository(context.getStateStore(SessionRepository.SKELETON_STORE),
                context.getStateStore(SessionRepository.ENTRY_STORE),
                context.getStateStore(SessionRepository.HANDOFF_ID_STORE),
                context.getStateStore(SessionProvenance.STORE), options.decodedCacheBytes());
        this.timers = new SessionTimerIndex(context.getStateStore(TIMER_STORE));
        if (ledgerStore != null) this.ledgers = context.getStateStore(ledgerStore);
        ReadOnlyKeyValueStore<String, byte[]> policyStore =
                options.policyStore() == null ? null : context.getStateStore(options.policyStore());
        this.policies = new TenantPolicies(policyStore, options.policyDecoder(), options.defaultPolicy());
        this.metrics = new TaskSensors(context.metrics(), context.taskId().toString(), "session");
        this.latency = LatencyRecorder.from(context.appConfigs());
        DecodedStateCache cache = sessions.cache();
        metrics.gauge(MetricCatalogue.DECODED_STATE_CACHE_BYTES, cache::bytes);
        metrics.gauge(MetricCatalogue.DECODED_STATE_CACHE_SESSIONS, cache::size);
        // Counts since the task was created here (a task that moves starts again at 0): hits / (hits + misses) is
        // the share of events whose session was found decoded; a miss reads and decodes the stored entries.
        metrics.gauge(MetricCatalogue.DECODED_STATE_CACHE_HITS, cache::hits);
        metrics.gauge(MetricCatalogue.DECODED_STATE_CACHE_MISSES, cache::misses);
        if (options.wallClockPunctuation()) {
            punctuator = context.schedule(options.punctuateInterval(), PunctuationType.WALL_CLOCK_TIME,
                    this::punctuate);
        }
    }

    @SuppressWarnings("try") // the log context is for the log line inside: not read in the block
    @Override
    public void process(Record<String, InboundEvent> record) {
        InboundEvent ev = record.value();
        try {
            boolean settle = record.headers().lastHeader(CONTROL_HEADER) != null;
            String key = settle ? record.key() : ev.sessionKey();
            Arrival arrival = settle ? new Arrival.Settle() : ev.arrival();
            // the hand-off that arrived with this record: its snapshot's latency is measured from the record's timestamp
            String arrived = arrival instanceof Arrival.HandoffArrived h ? h.handoff().handoffId() : null;
            forward(key, step(key, arrival, context.currentSystemTimeMs(), ev, record.headers()), record.timestamp(),
                    arrived);
        } catch (RuntimeException e) {
            // e.g. the schema registry is unreachable: fail the task and retry, never dead-letter
            if (DeadLetters.isTransient(e)) throw e;
            try (LogContext log = LogContext.session(record.key()).with(LogContext.DEAD_LETTER_CODE,
                    ErrorCode.INTERNAL.name()).traceOf(record.headers())) {
                LOG.error("Unexpected failure on record of session {} ({}); dead-lettered as INTERNAL", record.key(),
                        sourceOf(), e);
            }
            byte[] key = ev != null ? ev.rawKey() : utf8(record.key());
            byte[] value = ev != null ? ev.rawValue() : null;
            forward(record.key(), List.of(new Departure.DeadLetterOut(ErrorCode.INTERNAL,
                    e.getClass().getSimpleName() + ": " + e.getMessage(), key, value)), record.timestamp(), null);
        }
    }

    /**
     * The one step of a session: load → apply {@code arrival} → render → store (or delete) → what leaves. Settle and
     * wall-clock visits of a session without state do nothing. {@code ev} is the input event (null for settle and
     * wall clock), for the raw bytes of a dead letter.
     */
    List<Departure> step(String key, Arrival arrival, long now, InboundEvent ev,
                         org.apache.kafka.common.header.Headers headers) {
        // an input event carries its ids (checked by the decoder): no parse of the key text per event
        SessionKey ids = ev != null ? ev.key() : SessionKey.parse(key)
                .orElseThrow(() -> new IllegalArgumentException("not a session key: " + key));
        Policy policy = policies.forTenant(ids.tenantId());
        SessionRepository.Loaded loaded = sessions.load(key);
        if (!arrival.fromInput() && !loaded.existed()) return List.of();
        SessionState state = loaded.state();
        long dueBefore = indexed() && loaded.existed() && arrival.fromInput() ? SessionTimerIndex.indexDue(state, policy)
                : SessionTimerIndex.NEVER;
        if (arrival.fromInput()) {
            // A session past its grace/TTL that the punctuator has not reached yet behaves as if it had been deleted.
            if (indexed() && loaded.existed() && state.expired(now, policy)) {
                metrics.expiredSession();
                loaded = sessions.restart(loaded);
                state = loaded.state();
            }
            state.touch(now);
        }

        List<ReadyHandoff> ready = List.of();
        Runnable count = () -> { };
        Departure late = null;
        boolean accepted = false; // applied to the state: extends the session's input range (provenance)
        if (arrival instanceof Arrival.TurnArrived t) {
            TurnOutcome outcome = state.offerTurn(t.turn(), policy, now);
            ready = outcome.released();
            switch (outcome.kind()) {
                case APPLIED, HELD -> {
                    count = metrics::appliedTurn;
                    accepted = true;
                }
                case DUPLICATE -> count = metrics::duplicateTurn;
                case LATE_TURN -> late = new Departure.DeadLetterOut(ErrorCode.LATE_TURN,
                        "turn seq " + t.turn().seq() + " arrived after it was recorded missing", ev.rawKey(),
                        ev.rawValue());
            }
        } else if (arrival instanceof Arrival.HandoffArrived h) {
            HandoffOutcome outcome = state.offerHandoff(h.handoff(), h.occurredAtMillis(), policy, now);
            ready = outcome.ready();
            switch (outcome.kind()) {
                case DUPLICATE -> count = metrics::duplicateHandoff;
                case PARKED -> {
                    count = metrics::parkedHandoff;
                    accepted = true;
                }
                case READY -> accepted = true;
            }
            if (tracing.on()) { // the outcome's name is built only for a span
                tracing.handoffApplied(key, h.handoff().handoffId(), outcome.kind().name().toLowerCase(Locale.ROOT),
                        parked);
            }
        } else if (arrival instanceof Arrival.Closed) {
            state.close(now);
            accepted = true;
        } else if (arrival instanceof Arrival.Settle) {
            ready = state.settleAll(policy);
        } else if (arrival instanceof Arrival.WallClock) {
            ready = state.onWallClock(now, policy);
        }

        // The input range moves with the state it describes (stored in its skeleton): before rendering, so that the
        // snapshots of this record name it.
        if (accepted) {
            state.inputRange(SessionProvenance.applied(state.inputRange(), context.recordMetadata().orElse(null),
                    headers));
        }
        // Render before storing or forwarding anything: a failure then leaves no half-applied record behind.
        List<Departure> out = new ArrayList<>(ready.size() + 1);
        InputRange range = state.inputRange();
        for (Snapshot s : render(ids.tenantId(), ids.sessionId(), state, loaded.layouts(), ready, policy)) {
            out.add(new Departure.SnapshotOut(s.withProvenance(range)));
        }
        if (arrival instanceof Arrival.WallClock && state.expired(now, policy)) {
            sessions.delete(key);
            metrics.expiredSession();
        } else {
            sessions.store(loaded, state);
            if (arrival instanceof Arrival.WallClock) {
                long due = SessionTimerIndex.indexDue(state, policy);
                // onWallClock handled everything due by now; should the state still claim otherwise, look again at
                // the next punctuation rather than on every scan of this one.
                if (due <= now) due = now + options.punctuateInterval().toMillis();
                timers.move(key, SessionTimerIndex.NEVER, due);
            } else if (indexed() && arrival.fromInput()) {
                timers.move(key, dueBefore, SessionTimerIndex.indexDue(state, policy));
            }
        }
        count.run();
        if (late != null) out.add(late);
        return out;
    }

    /** With wall-clock punctuation off (backfill) nothing is ever due, so the timer index is not kept. */
    private boolean indexed() {
        return options.wallClockPunctuation();
    }

    /**
     * Wall-clock punctuation: visits the sessions the timer index has due, releases what waited long enough and
     * deletes expired sessions. A failure on one session is logged and skips that session only.
     */
    @SuppressWarnings("try") // the log context is for the log line inside: not read in the block
    void punctuate(long now) {
        for (String key : timers.takeDue(now, options.maxSessionsPerPunctuation())) {
            try {
                // Punctuation has no input record: the snapshot's timestamp is the wall clock of its release.
                forward(key, step(key, new Arrival.WallClock(), now, null, null), now, null);
            } catch (RuntimeException e) {
                if (DeadLetters.isTransient(e)) throw e;
                metrics.punctuationFailure();
                try (LogContext log = LogContext.session(key)) {
                    LOG.error("Wall-clock visit of session {} failed; skipped until its next event", key, e);
                }
            }
        }
    }

    private List<Snapshot> render(String tenantId, String sessionId, SessionState state, LayoutCache layouts,
                                  List<ReadyHandoff> ready, Policy policy) {
        if (ready.isEmpty()) return List.of();
        // receipts: how the previous escalation ended, when its receiver said so (else no line)
        String previous = ledgers == null ? null
                : HandoffReceiptProcessor.previousOutcome(ledgers, SessionKey.format(tenantId, sessionId));
        List<Snapshot> out = new ArrayList<>(ready.size());
        for (ReadyHandoff handoff : ready) {
            long start = System.nanoTime();
            ContextEngine.Rendered r = fitted(tenantId, sessionId, state, layouts, handoff, policy, previous);
            latency.render(tenantId, System.nanoTime() - start);
            // The emitted snapshot's print: the receiver's next snapshot measures its stable prefix against it.
            // A backfill's synthetic hand-off is a what-if, never delivered: not remembered, so that real hand-offs
            // render the same with and without triggers (docs/decisions.md, synthetic hand-offs).
            if (r.print() != null && !Identifiers.isSyntheticHandoffId(handoff.handoff().handoffId())) {
                state.rememberPrint(handoff.handoff().toAgent(), r.print());
            }
            out.add(r.snapshot());
        }
        return out;
    }

    /**
     * Renders the hand-off; while the snapshot's size bound ({@link SnapshotSize#of}) exceeds what a record may hold,
     * renders it again with the transcript budget halved, as a hand-off's own {@code message_budget_chars} would
     * lower it (the snapshot's markers say what was left out). The policy check keeps this for sessions of very many
     * tiny messages, whose per-message overhead no policy bounds. Below the minimum budget the snapshot is returned
     * as it is: the snapshot writer then finds it too large and dead-letters its record as INTERNAL.
     */
    @SuppressWarnings("try") // the log context is for the log line inside: not read in the block
    private ContextEngine.Rendered fitted(String tenantId, String sessionId, SessionState state, LayoutCache layouts,
                                          ReadyHandoff handoff, Policy policy, String previous) {
        long limit = (long) options.maxOutputBytes() - RECORD_OVERHEAD_BYTES;
        ContextEngine.Rendered snapshot = timedRender(tenantId, sessionId, state, layouts, handoff, policy, previous);
        int budget = policy.transcriptBudgetFor(handoff.handoff().messageBudgetChars());
        while (SnapshotSize.of(snapshot.snapshot(), options.encoding()) > limit
                && budget > policy.minTranscriptBudgetChars()) {
            budget = Math.max(policy.minTranscriptBudgetChars(), budget / 2);
            Handoff h = handoff.handoff();
            Handoff lowered = new Handoff(h.handoffId(), h.fromAgent(), h.toAgent(), h.target(), h.brief(),
                    h.asOfSeq(), budget);
            try (LogContext log = LogContext.session(tenantId, sessionId).with(LogContext.HANDOFF, h.handoffId())
                    .with(LogContext.SNAPSHOT, SessionKey.of(tenantId, sessionId).snapshotId(h.handoffId()))) {
                LOG.warn("Snapshot of hand-off {} of session {}/{} may exceed {} bytes; rendered again with a "
                        + "transcript budget of {} characters", h.handoffId(), tenantId, sessionId,
                        options.maxOutputBytes(), budget);
            }
            snapshot = timedRender(tenantId, sessionId, state, layouts,
                    new ReadyHandoff(lowered, handoff.occurredAtMillis(), handoff.pendingMissing()), policy, previous);
        }
        return snapshot;
    }

    private ContextEngine.Rendered timedRender(String tenantId, String sessionId, SessionState state,
                                               LayoutCache layouts, ReadyHandoff handoff, Policy policy,
                                               String previous) {
        long start = System.nanoTime();
        ContextEngine.Rendered snapshot = ContextEngine.renderWithPrint(tenantId, sessionId, state, handoff, policy,
                options.tokenizers(), layouts, previous);
        metrics.renderNanos(System.nanoTime() - start);
        return snapshot;
    }

    /**
     * @param arrivedHandoff the id of the hand-off that arrived with the record being processed, or null: its snapshot
     *                       is timed from {@code timestamp} (the record's) to now, once the snapshot writer has encoded
     *                       it and handed it to the producer (forward is synchronous); a hand-off that waited (parked)
     *                       for turns or for the wall clock is not timed, as its record's timestamp is not kept
     */
    private void forward(String key, List<Departure> out, long timestamp, String arrivedHandoff) {
        for (Departure d : out) {
            if (d instanceof Departure.SnapshotOut s) {
                Snapshot snapshot = s.snapshot();
                // fresh headers: the input's headers (e.g. baton.control) do not belong on the output; tracing on,
                // the snapshot's span adds its traceparent
                RecordHeaders headers = new RecordHeaders();
                tracing.emit(key, snapshot, headers, parked, () -> context.forward(
                        new Record<String, Object>(key, snapshot, timestamp, headers), options.snapshotChild()));
                metrics.snapshotEmitted();
                if (snapshot.handoffId().equals(arrivedHandoff)) {
                    latency.handoffToSnapshot(snapshot.tenantId(), Math.max(0, System.currentTimeMillis() - timestamp));
                }
            } else if (d instanceof Departure.DeadLetterOut dl) {
                DeadLetters.forward(context, options.deadLetterChild(), timestamp, dl.key(), dl.value(), dl.code(),
                        dl.message());
            }
        }
    }

    private String sourceOf() {
        return DeadLetters.sourceOf(context);
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (punctuator != null) punctuator.cancel();
        if (metrics != null) metrics.close();
    }
}
